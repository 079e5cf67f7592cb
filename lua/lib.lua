-- lib: prepended to every script in this folder when qctl embeds them. Redis does not roll
-- back a script that fails half-way, and it refuses a command the user may not run only when
-- a script reaches it: so scripts check the user's rights, the key types and the values they
-- use before their first write.
--
-- check(key, want): nil when KEY is missing or of type WANT, else a WRONGTYPE error reply
-- naming the key.
local function check(key, want)
  local t = redis.call('TYPE', key)['ok']
  if t ~= 'none' and t ~= want then
    return redis.error_reply('WRONGTYPE ' .. key .. ' holds a ' .. t .. ', expected a ' .. want)
  end
end

-- raised(e, what): the error reply of the error E that a command WHAT ("RPUSH key") raised
-- under pcall, ending in "[WHAT]": such an error does not say where it came from. Scripts
-- that must undo a write when a later command fails (a command the user may not run, say)
-- run that command under pcall.
local function raised(e, what)
  local message = type(e) == 'table' and e.err or tostring(e)
  return redis.error_reply(message .. ' [' .. what .. ']')
end

-- denied(command, key, why): the NOPERM error reply saying that the user may not run COMMAND
-- on KEY (or at all, without a key), and WHY it is needed when that is not plain, ending in
-- "[COMMAND KEY]" as raised() does.
local function denied(command, key, why)
  local what = key and (command .. ' ' .. key) or command
  local on = key and (command .. ' on ' .. key) or command
  local note = why and (' (' .. why .. ')') or ''
  return redis.error_reply('NOPERM the user may not run ' .. on .. note
    .. '; checked before any write [' .. what .. ']')
end

-- permit(uses): nil when the user may run every command of USES on its key, else the
-- denied() reply of the first one it may not. USES lists {COMMAND, i, ...}, i indexing KEYS:
-- every command the script runs but the TYPE of check() and the HGET of counter(), which come
-- before any write and whose refusal stops the script there. redis.acl_check_cmd (Redis 7.0+,
-- Valkey) runs nothing. Redis 6.2 has none: there qctl's check of every command of a script
-- before a run's first call of it (lua/rights.lua) is all there is.
local function permit(uses)
  if not redis.acl_check_cmd then return nil end
  for j = 1, #uses, 2 do
    local key = KEYS[uses[j + 1]]
    if not redis.acl_check_cmd(uses[j], key) then return denied(uses[j], key) end
  end
end

-- counter(key, field, by): nil when FIELD of the hash KEY is missing or holds an integer that
-- BY (1 to 1000) can be added to, else a BADVALUE error reply naming the key, the field and
-- the value. HINCRBY refuses anything else (Redis's own integer syntax, signed 64 bits).
local function counter(key, field, by)
  local v = redis.call('HGET', key, field)
  if not v or v == '0' then return nil end
  local sign, digits = string.match(v, '^(%-?)([1-9]%d*)$')
  if digits and #digits < 19 then return nil end
  if digits and #digits == 19 then
    -- Same length: text order is number order. The most is 2^63 - 1, the least -2^63.
    local most = sign == '-' and '9223372036854775808'
      or '922337203685477' .. string.format('%04d', 5807 - by)
    if digits <= most then return nil end
  end
  local shown = string.gsub(#v > 40 and (string.sub(v, 1, 40) .. '...') or v, '%c', '?')
  return redis.error_reply('BADVALUE ' .. key .. ' field ' .. field .. ' holds "' .. shown
    .. '", not an integer that ' .. by
    .. ' can be added to (set it right with HSET, or remove it with HDEL)')
end
