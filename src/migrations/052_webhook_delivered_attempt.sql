-- A delivered event's successful attempt is kept in the event's own row instead of a row of webhook_attempts: the
-- recording statement updates the event anyway, and an attempt row with its three index entries was about a quarter
-- of the database's writes per delivered event (docs/benchmarks.md#delivered-attempt). The attempt log keeps the
-- failed attempts. `delivered_latency_ms` is set exactly while the event's last successful attempt lives in its row:
-- that attempt is number `attempts`, made at `delivered_at` by `delivered_by`, answered with `last_status`. Events
-- delivered before this migration have it NULL: their successful attempt is in webhook_attempts. A replay moves an
-- in-row attempt into the log before the event is queued again (src/store/webhook-deliveries.ts).
ALTER TABLE webhook_events ADD COLUMN delivered_latency_ms INT, ADD COLUMN delivered_by TEXT;
