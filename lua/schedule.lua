-- schedule: add jobs to NAME:scheduled to become due at a given time, skipping ids that
-- are taken.
--
-- KEYS[1]  NAME:data       hash  id -> record
-- KEYS[2]  NAME:scheduled  zset  id -> due time (unix seconds)
-- ARGV     id1, record1, due1, id2, record2, due2, ...  (at most 1000 triples a call)
--
-- Returns  an array with one integer per job, in ARGV order: 1 if it was scheduled, 0 if a
--          record with that id already exists.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE when NAME:data or NAME:scheduled holds another type.
--
-- Same effect per job as CurlyQ's schedule (HSETNX the record; if new, ZADD the id), with
-- one HMGET, one HSET and one ZADD for the whole call.
local err = permit{'HMGET', 1, 'HSET', 1, 'ZADD', 2}
  or check(KEYS[1], 'hash') or check(KEYS[2], 'zset')
if err then return err end

local ids = {}
for i = 1, #ARGV, 3 do ids[#ids + 1] = ARGV[i] end
if #ids == 0 then return {} end
local existing = redis.call('HMGET', KEYS[1], unpack(ids))
local result, writes, members, seen = {}, {}, {}, {}
for j = 1, #ids do
  local id = ids[j]
  if existing[j] or seen[id] then
    result[j] = 0
  else
    seen[id] = true
    result[j] = 1
    writes[#writes + 1] = id
    writes[#writes + 1] = ARGV[3 * j - 1]
    members[#members + 1] = ARGV[3 * j]
    members[#members + 1] = id
  end
end
if #writes > 0 then
  redis.call('HSET', KEYS[1], unpack(writes))
  redis.call('ZADD', KEYS[2], unpack(members))
end
return result
