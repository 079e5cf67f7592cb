-- push: enqueue jobs at the tail of NAME:active, skipping ids that are taken.
--
-- KEYS[1]  NAME:data    hash  id -> record
-- KEYS[2]  NAME:active  list  ready ids
-- KEYS[3]  NAME:signal  list  wake-up flag
-- ARGV     id1, record1, id2, record2, ...  (at most 1000 pairs a call)
--
-- Returns  the number of jobs when every job was enqueued; otherwise an array with one
--          integer per job, in ARGV order: 1 if it was enqueued, 0 if a record with that id
--          already exists (active, scheduled, in flight or dead).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE when NAME:data or NAME:active holds another type. On Redis 6.2, which
--          cannot check a right without using it, a refused command stops the script before
--          any write but the wake-up flag, except for RPUSH, after which the records written
--          are deleted again (that error ends in "[RPUSH NAME:active]").
--
-- Same effect per job as CurlyQ's push (HSETNX the record; if new, RPUSH the id), with the
-- signal raised (DEL, LPUSH 1) once for the whole call. A repeated id within one call is
-- a duplicate of its first occurrence. Jobs whose ids are UUIDs qctl has just made, which
-- cannot be taken, go by push_new.lua instead.
local err = permit{'HMGET', 1, 'DEL', 3, 'LPUSH', 3, 'HSET', 1, 'RPUSH', 2, 'HDEL', 1}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'list')
if err then return err end

local n = math.floor(#ARGV / 2)
if n == 0 then return {} end
local ids = {}
for j = 1, n do ids[j] = ARGV[2 * j - 1] end
-- Existing ids are found with one HMGET and new records written with one HSET, which is
-- several times cheaper than one HSETNX per job.
local existing = redis.call('HMGET', KEYS[1], unpack(ids))
local taken = false
for j = 1, n do
  if existing[j] then
    taken = true
    break
  end
end
-- The wake-up flag is raised before the first write, so that a command the user may not
-- run stops the script before it has written anything. Usually no id is taken: ARGV goes to
-- HSET as it is, and HSET's count of new fields tells whether an id repeats within the
-- call. If one does, HSET kept its last record, and the per-job pass below writes the first
-- one again.
local function signal()
  redis.call('DEL', KEYS[3])
  redis.call('LPUSH', KEYS[3], 1)
end
local result, new = n, ids
local written = false
if not taken then
  signal()
  written = redis.call('HSET', KEYS[1], unpack(ARGV)) == n
end
if not written then
  local writes, seen = {}, {}
  result, new = {}, {}
  for j = 1, n do
    local id = ids[j]
    if existing[j] or seen[id] then
      result[j] = 0
    else
      seen[id] = true
      result[j] = 1
      new[#new + 1] = id
      writes[#writes + 1] = id
      writes[#writes + 1] = ARGV[2 * j]
    end
  end
  if #new > 0 then
    if taken then signal() end
    redis.call('HSET', KEYS[1], unpack(writes))
  end
end
-- Every id in NEW was free: if RPUSH fails, their records are deleted again.
if #new > 0 then
  local ok, e = pcall(redis.call, 'RPUSH', KEYS[2], unpack(new))
  if not ok then
    redis.pcall('HDEL', KEYS[1], unpack(new))
    return raised(e, 'RPUSH ' .. KEYS[2])
  end
end
return result
