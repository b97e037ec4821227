-- The webhook outbox's due events in a narrow table of their own (issue #21: webhook deliveries per worker). A
-- delivery moved an event out of the partial due index (`state` and `next_attempt_at` were indexed), so PostgreSQL
-- could never update an event in place (HOT) and wrote a new entry into each of the event's five other indexes for
-- every delivery. Now:
--
-- webhook_due: one row per pending event, keyed as the workers read them (webhook, due time, chain position). Kept
-- by triggers on webhook_events, whatever statement moves an event (the ingester's insert, a worker's recording, a
-- replay, a webhook switched on again, a webhook deleted, a truncation): a row exists exactly while its event is
-- pending, with the event's due time. The triggers are per statement (transition tables), one set-wise statement each.
--
-- webhook_events: no index names `state` or `next_attempt_at` any more, and pages keep a fifth free, so recording a
-- delivery updates the event in place. Retention finds old events by a BRIN index of `created_at` (rows are appended
-- in time order, and a BRIN index costs next to nothing per insert); it still deletes finished events only.
--
-- Measured (`npm run bench -- outbox`, docs/benchmarks.md#outbox, one A-B-B-A set against the parent): PostgreSQL's
-- CPU per delivered event (claim and record) 0.68x, per queued event 1.03x (within the noise); with a B-tree on
-- `created_at` instead of the BRIN index, 0.77x and 1.18x.

CREATE TABLE webhook_due (
  webhook_id       UUID NOT NULL,
  next_attempt_at  TIMESTAMPTZ NOT NULL,
  position         BIGINT NOT NULL,
  event_id         BIGINT NOT NULL,
  PRIMARY KEY (webhook_id, next_attempt_at, position, event_id)
);

INSERT INTO webhook_due (webhook_id, next_attempt_at, position, event_id)
SELECT webhook_id, next_attempt_at, position, id FROM webhook_events WHERE state = 'pending';

CREATE FUNCTION webhook_due_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_due (webhook_id, next_attempt_at, position, event_id)
  SELECT webhook_id, next_attempt_at, position, id FROM new_events WHERE state = 'pending';
  RETURN NULL;
END $$;

CREATE FUNCTION webhook_due_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_due d USING old_events o JOIN new_events n ON n.id = o.id
   WHERE o.state = 'pending' AND (n.state <> 'pending' OR n.next_attempt_at <> o.next_attempt_at)
     AND d.webhook_id = o.webhook_id AND d.next_attempt_at = o.next_attempt_at AND d.position = o.position AND d.event_id = o.id;
  INSERT INTO webhook_due (webhook_id, next_attempt_at, position, event_id)
  SELECT n.webhook_id, n.next_attempt_at, n.position, n.id FROM old_events o JOIN new_events n ON n.id = o.id
   WHERE n.state = 'pending' AND (o.state <> 'pending' OR n.next_attempt_at <> o.next_attempt_at);
  RETURN NULL;
END $$;

CREATE FUNCTION webhook_due_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_due d USING old_events o
   WHERE o.state = 'pending'
     AND d.webhook_id = o.webhook_id AND d.next_attempt_at = o.next_attempt_at AND d.position = o.position AND d.event_id = o.id;
  RETURN NULL;
END $$;

CREATE FUNCTION webhook_due_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE webhook_due;
  RETURN NULL;
END $$;

CREATE TRIGGER webhook_due_insert AFTER INSERT ON webhook_events
  REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_due_inserted();
CREATE TRIGGER webhook_due_update AFTER UPDATE ON webhook_events
  REFERENCING OLD TABLE AS old_events NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_due_updated();
CREATE TRIGGER webhook_due_delete AFTER DELETE ON webhook_events
  REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_due_deleted();
CREATE TRIGGER webhook_due_truncate AFTER TRUNCATE ON webhook_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_due_truncated();

DROP INDEX webhook_events_due_idx;
DROP INDEX webhook_events_finished_idx;
CREATE INDEX webhook_events_created_idx ON webhook_events USING brin (created_at);
ALTER TABLE webhook_events SET (fillfactor = 80);
-- Every due row dies at its delivery: vacuum the queue early (the default waits for a fifth of it to be dead).
ALTER TABLE webhook_due SET (autovacuum_vacuum_scale_factor = 0.02);
