-- Webhook replays read from the cluster: `POST /v0/webhooks/{id}/replay` queues the webhook's stored events of the
-- range again at once and, with a cluster RPC, a job that reads the webhook's addresses' transactions of the range
-- from the cluster (src/ingest/webhook-replay.ts), so events from before the webhook existed or before the index
-- began are delivered too. Claimed with a lease (`FOR UPDATE SKIP LOCKED`) by any serve process.
CREATE TABLE webhook_replays (
  id           BIGSERIAL PRIMARY KEY,
  webhook_id   UUID NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  from_slot    BIGINT NOT NULL,
  to_slot      BIGINT NOT NULL,
  status       TEXT NOT NULL DEFAULT 'pending',   -- pending | running | done | truncated | failed
  addresses    INT NOT NULL DEFAULT 0,            -- addresses read so far
  transactions BIGINT NOT NULL DEFAULT 0,         -- transactions of the range read
  events       BIGINT NOT NULL DEFAULT 0,         -- events queued that were not stored
  last_error   TEXT,
  lease_until  TIMESTAMPTZ,
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  finished_at  TIMESTAMPTZ
);
CREATE INDEX webhook_replays_due_idx ON webhook_replays (created_at) WHERE status IN ('pending', 'running');
CREATE INDEX webhook_replays_webhook_idx ON webhook_replays (webhook_id, id);
