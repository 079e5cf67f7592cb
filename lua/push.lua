-- push: enqueue jobs at the tail of NAME:active, skipping ids that are taken.
--
-- KEYS[1]  NAME:data    hash  id -> record
-- KEYS[2]  NAME:active  list  ready ids
-- KEYS[3]  NAME:signal  list  wake-up flag
-- ARGV     id1, record1, id2, record2, ...  (at most 1000 pairs a call)
--
-- Returns  an array with one integer per job, in ARGV order: 1 if it was enqueued, 0 if a
--          record with that id already exists (active, scheduled, in flight or dead).
-- Errors   "WRONGTYPE ..." naming the key, before any write, when NAME:data or NAME:active
--          holds another type.
--
-- Same effect per job as CurlyQ's push: HSETNX the record; if new, RPUSH the id; then
-- raise the signal (DEL, LPUSH 1) once for the whole call.
local function check(key, want)
  local t = redis.call('TYPE', key)['ok']
  if t ~= 'none' and t ~= want then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. t .. ', expected a ' .. want)
  end
end
local err = check(KEYS[1], 'hash') or check(KEYS[2], 'list')
if err then return err end

local result, new = {}, {}
for i = 1, #ARGV, 2 do
  local added = redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
  result[#result + 1] = added
  if added == 1 then new[#new + 1] = ARGV[i] end
end
if #new > 0 then
  redis.call('RPUSH', KEYS[2], unpack(new))
  redis.call('DEL', KEYS[3])
  redis.call('LPUSH', KEYS[3], 1)
end
return result
