-- lib: prepended to every script in this folder when qctl embeds them.
--
-- check(key, want): nil when KEY is missing or of type WANT, else a WRONGTYPE error reply
-- naming the key. Scripts check every key before their first write, because Redis does not
-- roll back a script that fails half-way.
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
