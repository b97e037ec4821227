-- Delivery attempts without a foreign key to their event. Every recorded attempt ran the key's check (a lookup of
-- the event, locked FOR KEY SHARE) although the attempt is written in the same statement that updates that event, so
-- the event always exists; and every pruned event ran the cascade's lookup into each partition of the attempts.
-- Recording 100 delivered events took 0.8x the time without it (docs/benchmarks.md#attempts-fk).
-- What the cascades did is done here instead: a deleted webhook's attempts (deleted with it, by its API key's
-- deletion too) go in the same statement, by the trigger below; a pruned event's attempts age out by their own
-- retention (`pruneDeliveries` and the partitions by day), and nothing reads attempts but through their event.
DO $$
DECLARE c text;
BEGIN
  FOR c IN SELECT conname FROM pg_constraint
            WHERE conrelid = 'webhook_attempts'::regclass AND contype = 'f' AND confrelid = 'webhook_events'::regclass
  LOOP
    EXECUTE format('ALTER TABLE webhook_attempts DROP CONSTRAINT %I', c);
  END LOOP;
END
$$;

CREATE FUNCTION webhook_attempts_of_deleted_webhooks() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_attempts a USING deleted_webhooks d WHERE a.webhook_id = d.id;
  RETURN NULL;
END
$$;

CREATE TRIGGER webhooks_delete_attempts AFTER DELETE ON webhooks
  REFERENCING OLD TABLE AS deleted_webhooks FOR EACH STATEMENT EXECUTE FUNCTION webhook_attempts_of_deleted_webhooks();
