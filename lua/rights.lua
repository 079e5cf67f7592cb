-- rights: checks, before a run's first write, that the user may run each command the run
-- will send on the key it names, and changes nothing. Redis refuses a command inside a script
-- only when the script reaches it, and keeps what the script wrote before.
--
-- KEYS     the keys the commands name; the last one does not exist (qctl makes its name
--          from the first key and a new UUID) and is used where a command must name a
--          missing key
-- ARGV[1]  a field and member name that no job uses (qctl makes it with a new UUID)
-- ARGV     then pairs COMMAND, i: a command and the index of its key in KEYS (0: none)
--
-- Returns  the number of pairs checked.
-- Errors   NOPERM naming the first command the user may not run and its key, ending in
--          "[COMMAND KEY]"; any other error a command met (OOM), ending the same way.
--
-- Redis 7.0+ and Valkey: redis.acl_check_cmd, which runs nothing. Redis 6.2, where rights
-- to commands and to keys are independent: each command runs in a form that changes
-- nothing (LTRIM k 0 -1, HDEL k PROBE, ZADD k XX 0 PROBE, reads of nothing), or writes PROBE
-- and undoes it at once with a command checked before it (HSET, HINCRBY: HDEL; SADD: SREM;
-- RPUSH, LPUSH: LTRIM), so the script ends as it began and no client sees it; DEL, PEXPIRE,
-- XADD (NOMKSTREAM) and XTRIM run on the missing key. A key of another type makes a command fail
-- before it writes: that still shows the right. Commands 6.2 does not run in scripts
-- (BRPOPLPUSH, BLPOP) are not checked there.
local probe = ARGV[1]
local missing = KEYS[#KEYS]

-- Runs a command under pcall: nil when the user may run it, else the error reply; then
-- whether it ran (a key of another type fails it before it writes, which still shows the
-- right).
local function try(command, key, ...)
  local r
  if key then r = redis.pcall(command, key, ...) else r = redis.pcall(command, ...) end
  if type(r) ~= 'table' or not r.err then return nil, true end
  if string.find(r.err, 'WRONGTYPE', 1, true) then return nil, false end
  if string.find(r.err, "can't", 1, true) or string.find(r.err, 'NOPERM', 1, true) then
    return denied(command, key)
  end
  return raised(r, key and (command .. ' ' .. key) or command)
end

-- Each command in a form that leaves its key as it was.
local forms = {
  TYPE = function(k) return try('TYPE', k) end,
  EXISTS = function(k) return try('EXISTS', k) end,
  LLEN = function(k) return try('LLEN', k) end,
  HLEN = function(k) return try('HLEN', k) end,
  SCARD = function(k) return try('SCARD', k) end,
  ZCARD = function(k) return try('ZCARD', k) end,
  HGET = function(k) return try('HGET', k, probe) end,
  HMGET = function(k) return try('HMGET', k, probe) end,
  HEXISTS = function(k) return try('HEXISTS', k, probe) end,
  HSTRLEN = function(k) return try('HSTRLEN', k, probe) end,
  SISMEMBER = function(k) return try('SISMEMBER', k, probe) end,
  SMISMEMBER = function(k) return try('SMISMEMBER', k, probe) end,
  SMEMBERS = function(k) return try('SMEMBERS', k) end,
  SRANDMEMBER = function(k) return try('SRANDMEMBER', k, 1) end,
  ZSCORE = function(k) return try('ZSCORE', k, probe) end,
  LRANGE = function(k) return try('LRANGE', k, 1, 0) end,
  LPOS = function(k) return try('LPOS', k, probe) end,
  ZRANGE = function(k) return try('ZRANGE', k, 1, 0) end,
  ZRANGEBYSCORE = function(k) return try('ZRANGEBYSCORE', k, 1, 0) end,
  LTRIM = function(k) return try('LTRIM', k, 0, -1) end,
  LREM = function(k) return try('LREM', k, 0, probe) end,
  HDEL = function(k) return try('HDEL', k, probe) end,
  SREM = function(k) return try('SREM', k, probe) end,
  ZREM = function(k) return try('ZREM', k, probe) end,
  ZADD = function(k) return try('ZADD', k, 'XX', 0, probe) end,
  XREVRANGE = function(k) return try('XREVRANGE', k, '+', '-', 'COUNT', 1) end,
}
-- DEL, UNLINK, PEXPIRE, XADD (NOMKSTREAM: it creates nothing) and XTRIM run on the missing key,
-- which they leave missing: on 6.2 the right to a command does not depend on the key, and
-- the right to the key shows in the other commands the run sends on it. A missing key out
-- of the user's reach tells nothing about the command.
local function on_missing(command, ...)
  local args = {...}
  return function(k)
    local r = redis.pcall(command, missing, unpack(args))
    if type(r) == 'table' and r.err and string.find(r.err, 'run this command', 1, true) then
      return denied(command, k)
    end
  end
end
forms.DEL = on_missing('DEL')
forms.UNLINK = on_missing('UNLINK')
forms.PEXPIRE = on_missing('PEXPIRE', 1)
forms.XADD = on_missing('XADD', 'NOMKSTREAM', '*', probe, '')
forms.XTRIM = on_missing('XTRIM', 'MAXLEN', 0)
-- Written, then undone by the command UNDO (checked first) with its arguments.
local function undone(command, args, undo, undo_args)
  return function(k)
    if forms[undo](k) then
      return denied(undo, k, 'Redis 6.2 needs it to check ' .. command .. ' without a trace')
    end
    local err, ran = try(command, k, unpack(args))
    if err then return err end
    if ran then redis.call(undo, k, unpack(undo_args)) end
  end
end
forms.HSET = undone('HSET', {probe, ''}, 'HDEL', {probe})
forms.HINCRBY = undone('HINCRBY', {probe, 0}, 'HDEL', {probe})
forms.SADD = undone('SADD', {probe}, 'SREM', {probe})
forms.RPUSH = undone('RPUSH', {probe}, 'LTRIM', {0, -2})
forms.LPUSH = undone('LPUSH', {probe}, 'LTRIM', {1, -1})
local unchecked = {BRPOPLPUSH = true, BLPOP = true}

local pairs_checked = 0
for i = 2, #ARGV - 1, 2 do
  local command, index = ARGV[i], tonumber(ARGV[i + 1])
  local key = index > 0 and KEYS[index] or nil
  local err
  if redis.acl_check_cmd then
    local allowed
    if key then
      allowed = redis.acl_check_cmd(command, key)
    else
      allowed = redis.acl_check_cmd(command)
    end
    if not allowed then err = denied(command, key) end
  elseif forms[command] then
    err = forms[command](key)
  elseif not unchecked[command] then
    return redis.error_reply('ERR rights.lua has no way to check ' .. command .. ' [' .. command
      .. ']')
  end
  if err then return err end
  pairs_checked = pairs_checked + 1
end
return pairs_checked
