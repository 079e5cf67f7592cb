-- requeue: give reserved jobs back unchanged (shutdown, lease trouble): remove each from
-- this consumer's in-flight set and, only if it was there, append it to NAME:active with its
-- record untouched (Attempt unchanged); raise the signal.
--
-- KEYS[1]  NAME:inflight:<uuid>  set
-- KEYS[2]  NAME:active           list
-- KEYS[3]  NAME:signal           list
-- ARGV     id1, id2, ...  (at most 1000)
--
-- Returns  how many ids were given back.
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
local err = permit{'SREM', 1, 'RPUSH', 2, 'DEL', 3, 'LPUSH', 3}
  or check(KEYS[1], 'set') or check(KEYS[2], 'list')
if err then return err end

local back = {}
for i = 1, #ARGV do
  if redis.call('SREM', KEYS[1], ARGV[i]) == 1 then back[#back + 1] = ARGV[i] end
end
if #back > 0 then
  redis.call('RPUSH', KEYS[2], unpack(back))
  redis.call('DEL', KEYS[3])
  redis.call('LPUSH', KEYS[3], 1)
end
return #back
