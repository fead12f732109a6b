"""The Lua scripts of a table's keys (server/store/streams.py runs them): each change
that must be atomic in Redis is one script over keys of one hash slot (``{<table id>}``),
so a Redis Cluster runs it on one node.

- ``APPEND_LUA``: an action's entries, with the expected seq (and the lobby version),
  the action id for idempotency, ``seq``/``head`` and the ``SPUBLISH`` on the table channel;
- ``ARCHIVE_LUA``: an ended game replaced by its archive, if still at that seq;
- ``CREATE_LUA``, ``CREATE_NEW_LUA``, ``UPDATE_META_LUA``, ``REPACK_LUA``: the meta hash;
- ``CHAT_LUA``: a chat message within its sender's bucket;
- ``SET_IF_LUA``, ``LSET_IF_LUA``, ``HSET_IF_LUA``: compare-and-set of one value;
- ``BOT_LEASE_LUA``, ``BOT_RELEASE_LUA``: the bot lease of a table.
"""

APPEND_LUA = """
local meta, events, acts, chan = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local expected, want_version, act = tonumber(ARGV[1]), ARGV[2], ARGV[3]
local head, payload, n = ARGV[4], ARGV[5], tonumber(ARGV[6])
local prev = ARGV[7]
if redis.call('EXISTS', meta) == 0 then return {'missing', 0} end
if act ~= '' then
  local done = redis.call('HGET', acts, act)
  if done then
    -- Written again (same value) so that a WAIT after this call covers the original
    -- write: WAIT counts replicas up to this connection's last write.
    redis.call('HSET', acts, act, done)
    return {'dup', tonumber(done)}
  end
end
local seq = tonumber(redis.call('HGET', meta, 'seq') or '0')
if seq ~= expected then return {'stale', seq} end
if prev ~= '' and redis.call('HGET', meta, 'head') ~= prev then return {'stale', seq} end
if want_version ~= '' and redis.call('HGET', meta, 'version') ~= want_version then
  return {'stale', seq}
end
if n > 0 then redis.call('RPUSH', events, unpack(ARGV, 8, 7 + n)) end
local new = seq + n
redis.call('HSET', meta, 'seq', new, 'head', head)
for i = 8 + n, #ARGV, 2 do redis.call('HSET', meta, ARGV[i], ARGV[i + 1]) end
if want_version ~= '' then redis.call('HINCRBY', meta, 'version', 1) end
if act ~= '' then redis.call('HSET', acts, act, new) end
redis.call('PERSIST', meta)
if payload ~= '' then redis.call('SPUBLISH', chan, payload) end
return {'ok', new}
"""

ARCHIVE_LUA = """
local meta, events, acts, archive = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if redis.call('HGET', meta, 'status') ~= 'ended' then return 0 end
if tonumber(redis.call('HGET', meta, 'seq') or '-1') ~= tonumber(ARGV[1]) then return 0 end
if redis.call('LLEN', events) ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', archive, ARGV[2])
redis.call('DEL', events, acts)
-- the meta's fields move into the packed one, unless written since they were read (a
-- field stored plainly wins over the packed one: server/table/meta.py expand)
for i = 4, #ARGV, 2 do
  if redis.call('HGET', meta, ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', meta, ARGV[i]) end
end
redis.call('HSET', meta, 'z', ARGV[3])
return 1
"""

CREATE_LUA = """
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[1]))
"""

UPDATE_META_LUA = """
local meta, chan = KEYS[1], KEYS[2]
local want, ttl, payload = ARGV[1], tonumber(ARGV[2]), ARGV[3]
if redis.call('EXISTS', meta) == 0 then return -1 end
if want ~= '' and redis.call('HGET', meta, 'version') ~= want then return -2 end
for i = 4, #ARGV, 2 do redis.call('HSET', meta, ARGV[i], ARGV[i + 1]) end
local v = redis.call('HINCRBY', meta, 'version', 1)
if ttl > 0 then redis.call('EXPIRE', meta, ttl) elseif ttl < 0 then redis.call('PERSIST', meta) end
if payload ~= '' then redis.call('SPUBLISH', chan, payload) end
return v
"""

CHAT_LUA = """
local meta, list, chan = KEYS[1], KEYS[2], KEYS[3]
local entry, cap, ttl, payload = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local now, burst, refill = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
if redis.call('EXISTS', meta) == 0 then return {0, 0} end
local left = {}
for i = 4, #KEYS do
  local b = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens, at = tonumber(b[1]) or burst, tonumber(b[2]) or now
  tokens = math.min(burst, tokens + math.max(0, now - at) / refill)
  if tokens < 1 then return {2, math.ceil((1 - tokens) * refill * 1000)} end
  left[i] = tokens
end
for i = 4, #KEYS do
  redis.call('HSET', KEYS[i], 'tokens', tostring(left[i] - 1), 'at', tostring(now))
  redis.call('EXPIRE', KEYS[i], math.ceil(burst * refill) + 1)
end
redis.call('RPUSH', list, entry)
redis.call('LTRIM', list, -cap, -1)
redis.call('EXPIRE', list, ttl)
redis.call('SPUBLISH', chan, payload)
return {1, 0}
"""

CREATE_NEW_LUA = """
local meta = KEYS[1]
if redis.call('EXISTS', meta) == 1 then return 0 end
for i = 2, #ARGV, 2 do redis.call('HSET', meta, ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', meta, tonumber(ARGV[1]))
return 1
"""

LSET_IF_LUA = """
local missed = 0
for i = 1, #ARGV, 3 do
  local at = tonumber(ARGV[i])
  if redis.call('LINDEX', KEYS[1], at) == ARGV[i + 1] then
    redis.call('LSET', KEYS[1], at, ARGV[i + 2])
  else
    missed = missed + 1
  end
end
return missed
"""

SET_IF_LUA = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL')
return 1
"""

BOT_LEASE_LUA = """
local owner = redis.call('GET', KEYS[1])
if owner == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if owner then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

BOT_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

REPACK_LUA = """
local meta = KEYS[1]
if redis.call('HGET', meta, 'z') ~= ARGV[1] then return 0 end
redis.call('HSET', meta, 'z', ARGV[2])
for i = 3, #ARGV, 2 do
  if redis.call('HGET', meta, ARGV[i]) == ARGV[i + 1] then redis.call('HDEL', meta, ARGV[i]) end
end
return 1
"""

HSET_IF_LUA = """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""
