-- push_new: enqueue jobs with UUIDs qctl has just made, whose records and ids plain commands
-- have just written: the script runs inside MULTI/EXEC right after
-- `HSET NAME:data id1 record1 ...`, `RPUSH NAME:active id1 ...` and
-- `HSET NAME:push ids <their 16 bytes each>`, so no other client sees one of them without
-- the other or without the signal, nor NAME:push at all.
--
-- KEYS[1]  NAME:data    hash  id -> record
-- KEYS[2]  NAME:active  list  ready ids
-- KEYS[3]  NAME:signal  list  wake-up flag
-- KEYS[4]  NAME:push    hash  field ids: the jobs' ids as the 16 bytes of each UUID, in the
--                             order of the HSET; read only to undo the HSET, and removed
--                             here whatever happens. A script's arguments cost Redis for
--                             every byte (each is hashed into Lua's string table), a value
--                             kept in a key costs it a copy; the text of the ids would be more
--                             than twice the bytes.
-- ARGV[1]  n: the number of jobs (at most 1000); 0 when the script runs alone after the
--          commands ran without it (the server had lost it): it then checks the keys,
--          raises the signal and removes NAME:push.
--
-- Returns  n.
-- Errors   WRONGTYPE naming the key, when NAME:data or NAME:active holds another type, or
--          NOPERM naming a command the user may not run and its key. Nothing is left
--          changed: the n ids at the tail of NAME:active and their records in NAME:data are
--          removed again (a command on a key of another type failed and wrote nothing). An
--          error raised by a command ends in "[COMMAND KEY]", naming it, since the error of a
--          command run under pcall does not say where it came from. When the user may not
--          run LTRIM (or, on Redis 6.2, HDEL) either, or NAME:push was of another type (so
--          it got no ids), what was written stays, and the error says so; qctl checks these
--          rights before its first transaction.
--
-- Same effect per job as CurlyQ's push (HSETNX the record; if new, RPUSH the id), with the
-- signal raised (DEL, LPUSH 1) once for the whole call. A fresh UUID v4 cannot be taken (odds
-- about 2^-122); qctl still checks that the HSET added n fields.
local n = tonumber(ARGV[1])

local doing = ''
local function run(command, key, ...)
  doing = command .. ' ' .. key
  return redis.call(command, key, ...)
end

local function push()
  local err = permit{'TYPE', 1, 'TYPE', 2, 'DEL', 3, 'LPUSH', 3, 'DEL', 4}
  if err then return err end
  doing = 'TYPE ' .. KEYS[1]
  err = check(KEYS[1], 'hash')
  if err then return err end
  doing = 'TYPE ' .. KEYS[2]
  err = check(KEYS[2], 'list')
  if err then return err end
  run('DEL', KEYS[3])
  run('LPUSH', KEYS[3], 1)
  run('DEL', KEYS[4])
  return n
end

local ok, result = pcall(push)
if ok and type(result) == 'number' then return result end
local err = ok and result or raised(result, doing)

-- The error, with NOTE put before its "[COMMAND KEY]".
local function noting(note)
  local head, tail = string.match(err.err, '^(.*)( %[[^%[]*%])$')
  return redis.error_reply((head or err.err) .. note .. (tail or ''))
end
-- A refusal of an undo, in words; nil when the reply R is no refusal (a key of another type
-- makes an undo fail as its write did, with no effect).
local function refusal(r)
  if type(r) == 'table' and r.err and not string.find(r.err, 'WRONGTYPE', 1, true) then
    return r.err
  end
end

-- Undo what the HSET and the RPUSH wrote. Each wrote all of its jobs, unless its key holds
-- another type, where it wrote nothing. LTRIM goes first: when it is refused nothing is
-- removed, and the jobs stay whole rather than leave ids without records.
local cannot = permit{'LTRIM', 2, 'HDEL', 1, 'HGET', 4, 'DEL', 4}
if cannot then
  return noting(' (the ' .. n .. ' jobs written before the script stay in ' .. KEYS[2]
    .. ' and ' .. KEYS[1] .. ': ' .. cannot.err .. ')')
end
local trim = refusal(redis.pcall('LTRIM', KEYS[2], 0, -n - 1))
if trim then
  return noting(' (the ' .. n .. ' jobs written before the script stay in ' .. KEYS[2]
    .. ' and ' .. KEYS[1] .. ': LTRIM ' .. KEYS[2] .. ' failed: ' .. trim .. ')')
end
local packed = redis.pcall('HGET', KEYS[4], 'ids')
redis.call('DEL', KEYS[4])
if type(packed) ~= 'string' then
  if n > 0 and not check(KEYS[1], 'hash') then
    return noting(' (the records of the ' .. n .. ' jobs may stay in ' .. KEYS[1]
      .. ', in no list: ' .. KEYS[4] .. ' held no ids)')
  end
  return err
end
local ids = {}
for j = 1, #packed - 15, 16 do
  ids[#ids + 1] = string.format('%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x',
    string.byte(packed, j, j + 15))
end
if #ids > 0 then
  local hdel = refusal(redis.pcall('HDEL', KEYS[1], unpack(ids)))
  if hdel then
    return noting(' (the records of the ' .. n .. ' jobs stay in ' .. KEYS[1]
      .. ', in no list: HDEL ' .. KEYS[1] .. ' failed: ' .. hdel .. ')')
  end
end
return err
