-- delete_active: remove ready jobs from NAME:active together with their records and
-- recorded failures.
--
-- KEYS[1]  NAME:active    list
-- KEYS[2]  NAME:data      hash
-- KEYS[3]  NAME:failures  hash
-- ARGV     id1, id2, ...  (at most 100: LREM walks the list)
--
-- Returns  an array with one integer per id: 1 deleted, 0 not in the list.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
local err = permit{'LREM', 1, 'HDEL', 2, 'HDEL', 3}
  or check(KEYS[1], 'list') or check(KEYS[2], 'hash') or check(KEYS[3], 'hash')
if err then return err end

local out = {}
for i = 1, #ARGV do
  local n = redis.call('LREM', KEYS[1], 0, ARGV[i])
  if n > 0 then
    redis.call('HDEL', KEYS[2], ARGV[i])
    redis.call('HDEL', KEYS[3], ARGV[i])
    out[i] = 1
  else
    out[i] = 0
  end
end
return out
