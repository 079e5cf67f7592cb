-- drop_missing: removes ids that have no record in NAME:data from one of the queue's lists
-- or sets (no consumer can run them: the record is the job), each only if it still has no
-- record when the script runs.
--
-- KEYS[1]  NAME:data  hash  id -> record
-- KEYS[2]  the key holding the ids: NAME:active (list), NAME:scheduled or NAME:dead (zset),
--          or an in-flight set NAME:inflight:<uuid> (set)
-- ARGV[1]  the type of KEYS[2]: list, zset or set
-- ARGV     then id1, id2, ...  (at most 100: LREM walks the list)
--
-- Returns  an array with one integer per id: 1 removed, 0 left alone (it has a record by
--          now, or it is no longer in KEYS[2]).
-- Errors   before any write: NOPERM naming a command the user may not run and its key;
--          WRONGTYPE naming the key.
local err = permit{'HEXISTS', 1, 'LREM', 2, 'ZREM', 2, 'SREM', 2}
  or check(KEYS[1], 'hash') or check(KEYS[2], ARGV[1])
if err then return err end

local out = {}
for i = 2, #ARGV do
  local id, n = ARGV[i], 0
  if redis.call('HEXISTS', KEYS[1], id) == 0 then
    if ARGV[1] == 'list' then
      n = redis.call('LREM', KEYS[2], 0, id)
    elseif ARGV[1] == 'zset' then
      n = redis.call('ZREM', KEYS[2], id)
    else
      n = redis.call('SREM', KEYS[2], id)
    end
  end
  out[i - 1] = n > 0 and 1 or 0
end
return out
