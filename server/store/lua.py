"""Lua scripts: each state change of a room is one atomic script.

They keep the one-writer guarantee without locks: a move is written only if
the player's stored version is the one the engine validated against.
Scripts touch only keys passed in KEYS (all with the room's hash tag).
"""

from __future__ import annotations

from typing import Final

# KEYS: meta, p1..p8 (every possible seat, so the script names all it touches)
# ARGV: name, tokhash, now, lobby_ttl_ms, who (the casefolded claimed name, '' for
#       a guest), grace_ms  -> {player_number} | {player_number, 'takeover'} | {0, reason}
# One identity, one seat: a claimed name that already holds a seat here takes that
# seat over (its old token dies, as on a resume) in any phase, instead of a second one.
JOIN: Final = """
local phase = redis.call('HGET', KEYS[1], 'phase')
if not phase then return {0, 'no_room'} end
local n = tonumber(redis.call('HGET', KEYS[1], 'players'))
if ARGV[5] ~= '' then
  for i = 1, n do
    local p = redis.call('HMGET', KEYS[i + 1], 'who', 'left')
    if p[1] == ARGV[5] and p[2] ~= '1' then
      redis.call('HSET', KEYS[i + 1], 'tok', ARGV[2], 'name', ARGV[1])
      return {i, 'takeover'}
    end
  end
end
if phase ~= 'lobby' then return {0, 'room_started'} end
local max = tonumber(redis.call('HGET', KEYS[1], 'max'))
-- a seat left in the lobby is free again (its old token dies with it), and so is
-- one whose connection has been gone for longer than the grace period
local seat = 0
local now = tonumber(ARGV[3])
for i = 1, n do
  local p = redis.call('HMGET', KEYS[i + 1], 'left', 'conn', 'gone')
  if p[1] == '1' or (p[2] == '0' and p[3] and now - tonumber(p[3]) >= tonumber(ARGV[6])) then
    seat = i; break
  end
end
if seat == 0 then
  if n >= max then return {0, 'room_full'} end
  seat = n + 1
  redis.call('HSET', KEYS[1], 'players', seat)
end
local pkey = KEYS[seat + 1]
redis.call('DEL', pkey)
redis.call('HSET', pkey, 'name', ARGV[1], 'tok', ARGV[2], 'v', 0, 'seq', -1,
           'status', 'in_progress', 'fc', redis.call('HGET', KEYS[1], 'fc0') or 0, 'ready', 0,
           'conn', 1, 'joined', ARGV[3], 'left', 0)
if ARGV[5] ~= '' then redis.call('HSET', pkey, 'who', ARGV[5]) end
redis.call('PEXPIRE', pkey, ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {seat}
"""

# KEYS: meta, p1..pN (N = players).  ARGV: player, flag, now, countdown_ms,
#       race_ms, race_ttl_ms
# Sets the ready flag; when all seated players (at least two) are ready the
# race is scheduled. -> {started(0/1), starts_at, ends_at}
READY: Final = """
local phase = redis.call('HGET', KEYS[1], 'phase')
if phase ~= 'lobby' then return {0, 0, 0} end
-- a player who joined after the caller read the count: retry with all keys
if tonumber(redis.call('HGET', KEYS[1], 'players')) ~= #KEYS - 1 then return {-1, 0, 0} end
redis.call('HSET', KEYS[tonumber(ARGV[1]) + 1], 'ready', ARGV[2])
-- players who closed their connection in the lobby neither count nor block:
-- the race starts with the connected ones, and the others are dropped
local ready = 0
local seated = 0
for i = 2, #KEYS do
  local p = redis.call('HMGET', KEYS[i], 'left', 'conn', 'ready')
  if p[1] ~= '1' and p[2] and p[2] ~= '0' then
    seated = seated + 1
    if p[3] == '1' then ready = ready + 1 end
  end
end
local minp = tonumber(redis.call('HGET', KEYS[1], 'min'))
if seated < minp or ready < seated then return {0, 0, 0} end
local starts = tonumber(ARGV[3]) + tonumber(ARGV[4])
local ends = starts + tonumber(ARGV[5])
for i = 2, #KEYS do
  local p = redis.call('HMGET', KEYS[i], 'left', 'conn')
  if p[1] ~= '1' and (not p[2] or p[2] == '0') then redis.call('HSET', KEYS[i], 'left', 1) end
end
redis.call('HSET', KEYS[1], 'phase', 'racing', 'starts_at', starts, 'ends_at', ends)
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[6]) end
return {1, starts, ends}
"""

# KEYS: meta, player hash, log.  ARGV: expected_v, seq, now, move, status,
#       foundation_cards, progress_payload ('' publishes nothing), channel,
#       max_moves, ttl_ms
# -> {'ok', v} | {'dup', v} | {'stale', v} | {'stale_seq', v} | {reason, v}
MOVE: Final = """
local m = redis.call('HMGET', KEYS[1], 'phase', 'starts_at', 'ends_at')
local now = tonumber(ARGV[3])
if m[1] ~= 'racing' then
  if m[1] == 'finished' then return {'race_over', 0} end
  return {'not_started', 0}
end
if now < tonumber(m[2]) then return {'not_started', 0} end
if now >= tonumber(m[3]) then return {'race_over', 0} end
local p = redis.call('HMGET', KEYS[2], 'v', 'seq', 'status', 'fc')
local v = tonumber(p[1])
local seq = tonumber(ARGV[2])
-- the same seq again: the move is stored already, perhaps by a connection whose WAIT
-- timed out. A write of the same value puts this call in the replication stream
-- after it, so this batch's WAIT counts only replicas that have the move too.
if seq == tonumber(p[2]) then redis.call('HSET', KEYS[2], 'seq', seq); return {'dup', v} end
if seq < tonumber(p[2]) then return {'stale_seq', v} end
if p[3] ~= 'in_progress' then return {'game_over', v} end
if v ~= tonumber(ARGV[1]) then return {'stale', v} end
-- at the move cap a player may still resign (one entry past the cap at most)
if v >= tonumber(ARGV[9]) and ARGV[4] ~= 'resign' then return {'too_long', v} end
v = v + 1
redis.call('RPUSH', KEYS[3], (now - tonumber(m[2])) .. ' ' .. ARGV[4])
local fields = {'v', v, 'seq', seq, 'status', ARGV[5], 'fc', ARGV[6]}
if tonumber(ARGV[6]) > tonumber(p[4]) then
  table.insert(fields, 'fc_ms'); table.insert(fields, now - tonumber(m[2]))
end
if ARGV[5] ~= 'in_progress' then
  table.insert(fields, 'done_ms'); table.insert(fields, now - tonumber(m[2]))
end
redis.call('HSET', KEYS[2], unpack(fields))
if v == 1 then redis.call('PEXPIRE', KEYS[3], ARGV[10]) end
-- the room's shard channel: same slot as its keys, so it stays on this shard
if ARGV[7] ~= '' then redis.call('SPUBLISH', ARGV[8], ARGV[7]) end
return {'ok', v}
"""

# KEYS: meta, player hash, log.  ARGV: expected_v, status, since_v,
#       progress_payload ('' publishes nothing), channel
# -> 'ok' | 'stale' | 'game_over' | 'race_over'
# A dead-position verdict that came after its move was answered: the game ends
# at the version it was judged for, and done_ms is the time of move since_v,
# the position the search proved dead (every later one in its region is too).
VERDICT: Final = """
if redis.call('HGET', KEYS[1], 'phase') ~= 'racing' then return 'race_over' end
local p = redis.call('HMGET', KEYS[2], 'v', 'status')
if p[2] ~= 'in_progress' then return 'game_over' end
if tonumber(p[1]) ~= tonumber(ARGV[1]) then return 'stale' end
local fields = {'status', ARGV[2]}
local since = tonumber(ARGV[3])
if since > 0 then
  local row = redis.call('LINDEX', KEYS[3], since - 1)
  if row then
    table.insert(fields, 'done_ms'); table.insert(fields, tonumber(string.match(row, '^(-?%d+)')))
  end
end
redis.call('HSET', KEYS[2], unpack(fields))
if ARGV[4] ~= '' then redis.call('SPUBLISH', ARGV[5], ARGV[4]) end
return 'ok'
"""

# KEYS: meta, p1..pN, log1..logN.  ARGV: now, finished_ttl_ms
# Ends the race if the clock ran out or every game is over. Only the first
# caller gets 1, so exactly one process publishes the results.
FINISH: Final = """
local m = redis.call('HMGET', KEYS[1], 'phase', 'ends_at', 'players')
if m[1] ~= 'racing' then return 0 end
if tonumber(m[3]) * 2 ~= #KEYS - 1 then return -1 end
local now = tonumber(ARGV[1])
if now < tonumber(m[2]) then
  for i = 2, #KEYS do
    if string.find(KEYS[i], ':p:') and redis.call('HGET', KEYS[i], 'status') == 'in_progress'
       and redis.call('HGET', KEYS[i], 'left') ~= '1' then
      return 0
    end
  end
end
redis.call('HSET', KEYS[1], 'phase', 'finished', 'finished_at', now)
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[2]) end
return 1
"""

# KEYS: meta, done, log1..logN.  ARGV: the record packed (server/store/compact.py),
#       then per player the length its log had when read
# A finished race's results and logs move into one string key (``done``), packed, with
# the meta's time to live; the lists and the meta's ``results`` go. Only in a finished
# room with its results (no move is stored there any more), and only if every log has
# the length read. The meta is written anew without the results: a hash once made a
# hash table by a long field stays one after the field goes (Redis never converts it
# back to its compact encoding). -> 1 when compacted, 0 when not
COMPACT: Final = """
local m = redis.call('HMGET', KEYS[1], 'phase', 'results')
if m[1] ~= 'finished' or not m[2] then return 0 end
for i = 3, #KEYS do
  if redis.call('LLEN', KEYS[i]) ~= tonumber(ARGV[i - 1]) then return 0 end
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
local fields = redis.call('HGETALL', KEYS[1])
local keep = {}
for i = 1, #fields, 2 do
  if fields[i] ~= 'results' then
    keep[#keep + 1] = fields[i]; keep[#keep + 1] = fields[i + 1]
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(keep))
redis.call('PEXPIRE', KEYS[1], ttl)
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
return 1
"""

# KEYS: one hash.  ARGV: field, value, field, value...  -> 1, or 0 if the key is gone
# Updates a room's hash only while it exists: a plain HSET on an expired room would
# recreate its key without a TTL, and it would never go away.
HSET_EXISTING: Final = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# KEYS: player hash.  ARGV: session id, now
# A player's ``conn`` holds the id of the connection that owns the seat; a
# closing connection marks the player gone only if it still owns the seat,
# so a late disconnect of a replaced connection never hides the new one.
# ``gone`` is when: a lobby seat gone longer than a grace period is free (JOIN).
RELEASE_CONN: Final = """
if redis.call('HGET', KEYS[1], 'conn') == ARGV[1] then
  redis.call('HSET', KEYS[1], 'conn', 0, 'gone', ARGV[2])
  return 1
end
return 0
"""

# The store's small multi-command writes are scripts, not MULTI/EXEC: redis-py's
# cluster client runs each command queued in a transaction on a thread of its
# own with a fresh event loop (it blocks the server's loop while it does), and
# its reply callbacks break on SMEMBERS there. A script is one command to route.

# KEYS: rematch set.  ARGV: seat, 1 accept / 0 withdraw, ttl_ms.  Returns who accepts now.
REMATCH_VOTE: Final = """
if ARGV[2] == '1' then redis.call('SADD', KEYS[1], ARGV[1])
else redis.call('SREM', KEYS[1], ARGV[1]) end
local members = redis.call('SMEMBERS', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return members
"""

# KEYS: meta, player hashes in seat order.  ARGV: ttl_ms, then per seat the
# number of field/value pairs and the pairs.  Sets meta's ``players``.
RESERVE_SEATS: Final = """
local at = 2
for i = 2, #KEYS do
  local n = tonumber(ARGV[at])
  redis.call('HSET', KEYS[i], unpack(ARGV, at + 1, at + 2 * n))
  redis.call('PEXPIRE', KEYS[i], ARGV[1])
  at = at + 2 * n + 1
end
redis.call('HSET', KEYS[1], 'players', #KEYS - 1)
return 1
"""

# KEYS: meta, player hashes.  ARGV: starts_at, ends_at, ttl_ms.
START_RESERVED: Final = """
for i = 2, #KEYS do redis.call('HSET', KEYS[i], 'ready', 1) end
redis.call('HSET', KEYS[1], 'phase', 'racing', 'starts_at', ARGV[1], 'ends_at', ARGV[2])
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1
"""

# KEYS: a sorted set index.  ARGV: member, now (its score), oldest score kept
# (exclusive), most members kept, ttl_ms.
INDEX_ADD: Final = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[4]) - 1)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
"""
