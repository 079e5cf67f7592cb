-- schedule: add jobs to NAME:scheduled to become due at a given time, skipping ids that
-- are taken.
--
-- KEYS[1]  NAME:data       hash  id -> record
-- KEYS[2]  NAME:scheduled  zset  id -> due time (unix seconds)
-- ARGV     id1, record1, due1, id2, record2, due2, ...  (at most 1000 triples a call)
--
-- Returns  an array with one integer per job, in ARGV order: 1 if it was scheduled, 0 if a
--          record with that id already exists.
-- Errors   "WRONGTYPE ..." naming the key, before any write, when NAME:data or
--          NAME:scheduled holds another type.
--
-- Same effect per job as CurlyQ's schedule: HSETNX the record; if new, ZADD the id.
local function check(key, want)
  local t = redis.call('TYPE', key)['ok']
  if t ~= 'none' and t ~= want then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. t .. ', expected a ' .. want)
  end
end
local err = check(KEYS[1], 'hash') or check(KEYS[2], 'zset')
if err then return err end

local result = {}
for i = 1, #ARGV, 3 do
  local added = redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
  result[#result + 1] = added
  if added == 1 then redis.call('ZADD', KEYS[2], ARGV[i + 2], ARGV[i]) end
end
return result
