-- Synthesizes the scale benchmark's rows (see scale_test.go): request number n of {rows}
-- over {days} days ending at {end_ms} (n = 0 the oldest), for the n in [{first}, {first} + {count}),
-- {orgs_small} organisations and {big_org}, which holds {big_fifths} request in five, and about
-- 1.3 attempts per request, a failed one the request's only attempt with its reason, so
-- marked as the one that counts the request under it (counts_request; the benchmark then replays 0.5% of org-big's requests through the
-- Store, as a spill replay would). Event ids are ev-{run}-n. The attempts are those of the
-- requests in [{lo_ms}, {hi_ms}), the chunk's time span, so chunks run in parallel and a later
-- run adds the rows from the last one's end to now. Placeholders in braces are replaced before
-- the statements run; statements are separated by ';;'.
INSERT INTO requests (event_id, time, time_ms, request_id, org_id, key_id, end_user, session, format,
    requested_model, served_model, provider, route_kind, decision, cache_hit, stream, fallback, attempts,
    input_tokens, output_tokens, cache_read, cache_write, reasoning, cost_micros, baseline_micros, savings_micros,
    latency_ms, ttfb_ms, status, error_code)
SELECT
    concat('ev-{run}-', toString(number)) AS event_id,
    toDateTime(intDiv(t, 1000)) AS time,
    t AS time_ms,
    lower(concat(substring(hex(toUInt64(t)), 1, 8), '-', substring(hex(toUInt64(t)), 9, 4), '-7',
        substring(u, 16, 3), '-8', substring(u, 21, 3), '-', substring(u, 25, 12))) AS request_id,
    if(number % 5 < {big_fifths}, '{big_org}', concat('org-', toString(number % {orgs_small}))) AS org_id,
    concat('key-', toString(h % 7)) AS key_id,
    concat('user-', toString(intDiv(h, 7) % {users})) AS end_user,
    concat('sess-', toString(intDiv(h, 3) % 20000)) AS session,
    ['anthropic', 'chat', 'responses', 'gemini'][h % 4 + 1] AS format,
    ['claude-sonnet-4-5', 'gpt-5', 'auto', 'gemini-2.5-pro'][intDiv(h, 11) % 4 + 1] AS requested_model,
    ['claude-sonnet-4-5', 'claude-haiku-4-5', 'gpt-5-mini', 'gpt-5', 'gemini-2.5-flash'][intDiv(h, 13) % 5 + 1] AS served_model,
    ['anthropic', 'openai', 'google'][intDiv(h, 17) % 3 + 1] AS provider,
    ['explicit', 'routed', 'pinned', 'cache'][intDiv(h, 19) % 4 + 1] AS route_kind,
    'cluster:3 alpha=0.6' AS decision,
    toUInt8(intDiv(h, 19) % 4 = 3) AS cache_hit,
    toUInt8(h % 2) AS stream,
    toUInt8(intDiv(h, 23) % 20 = 0) AS fallback,
    toInt32(1 + (intDiv(h, 29) % 10 < 3)) AS attempts,
    toInt64(200 + h % 4000) AS input_tokens,
    toInt64(20 + intDiv(h, 31) % 800) AS output_tokens,
    toInt64(intDiv(h, 37) % 2000) AS cache_read,
    toInt64(0) AS cache_write,
    toInt64(0) AS reasoning,
    toInt64(100 + h % 9000) AS cost_micros,
    toInt64(200 + h % 12000) AS baseline_micros,
    toInt64(100 + h % 12000) - toInt64(h % 9000) AS savings_micros,
    toFloat64(50 + h % 4000) AS latency_ms,
    toFloat64(20 + h % 900) AS ttfb_ms,
    toInt32(if(intDiv(h, 41) % 50 = 0, 502, 200)) AS status,
    if(intDiv(h, 41) % 50 = 0, 'dispatch.attempts_exhausted', '') AS error_code
FROM (
    SELECT {first} + i AS number, cityHash64(number) AS h, toString(generateUUIDv4()) AS u,
        toInt64({end_ms}) - toInt64({days} * 86400000) + toInt64(intDiv(number * ({days} * 86400000), {rows})) AS t
    FROM (SELECT number AS i FROM numbers({count}))
);;
INSERT INTO attempts (event_id, time, time_ms, org_id, key_id, request_id, operation_id, purpose, policy_id,
    bundle_id, bundle_revision, attempt_index, model, provider, upstream, credential_id, outcome, reason, status,
    latency_ms, ttfb_ms, input_tokens, output_tokens, cache_read, cache_write, reasoning, cost_micros, stream,
    counts_request)
SELECT
    concat(event_id, '-a', toString(idx)), time, time_ms, org_id, key_id, request_id, concat(request_id, '/0'), 'main',
    'default', 'default', '1', toInt32(idx), served_model, provider, served_model, 'cred-1',
    if(idx + 1 < attempts, 'failed', 'served'),
    if(idx + 1 < attempts, ['upstream_5xx', 'upstream_rate_limited', 'transport', 'first_byte_timeout'][cityHash64(event_id) % 4 + 1], ''),
    toInt32(if(idx + 1 < attempts, 503, status)), latency_ms, ttfb_ms, input_tokens, output_tokens, cache_read,
    cache_write, reasoning, if(idx + 1 < attempts, toInt64(0), cost_micros), stream,
    toUInt8(idx + 1 < attempts)
FROM requests ARRAY JOIN range(toUInt64(attempts)) AS idx
WHERE time >= toDateTime(intDiv({lo_ms}, 1000)) AND time <= toDateTime(intDiv({hi_ms}, 1000))
    AND time_ms >= {lo_ms} AND time_ms < {hi_ms}
