-- delete: remove jobs from a sorted set (NAME:dead or NAME:scheduled) together with their
-- records and recorded failures, so no record is left behind.
--
-- KEYS[1]  NAME:dead or NAME:scheduled  zset
-- KEYS[2]  NAME:data                    hash
-- KEYS[3]  NAME:failures                hash
-- ARGV     id1, id2, ...  (at most 1000)
--
-- Returns  an array with one integer per id: 1 deleted, 0 not in the set (nothing changed).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
local err = permit{'ZREM', 1, 'HDEL', 2, 'HDEL', 3}
  or check(KEYS[1], 'zset') or check(KEYS[2], 'hash') or check(KEYS[3], 'hash')
if err then return err end

local out = {}
for i = 1, #ARGV do
  local was = redis.call('ZREM', KEYS[1], ARGV[i])
  if was == 1 then
    redis.call('HDEL', KEYS[2], ARGV[i])
    redis.call('HDEL', KEYS[3], ARGV[i])
  end
  out[i] = was
end
return out
