-- Webhook deliveries (issue #6): the outbox the ingester fills in the same transaction as the block it matched, the
-- payloads of matched transactions, every delivery attempt, and the per-webhook lease delivery workers take.
--
-- Auto-deactivation (failure rate over a window) records why and when, shown by the management API; switching the
-- webhook on again clears both.
ALTER TABLE webhooks ADD COLUMN deactivated_reason TEXT;
ALTER TABLE webhooks ADD COLUMN deactivated_at TIMESTAMPTZ;

-- One row per transaction that matched at least one webhook: the bodies a delivery sends, as JSON text (built once
-- at ingest, so a delivery never needs the chain again and every retry sends the same bytes). `enhanced` is NULL
-- for failed transactions (enhanced and discord webhooks do not receive them).
CREATE TABLE webhook_payloads (
  signature   TEXT PRIMARY KEY,
  slot        BIGINT NOT NULL,
  raw         TEXT NOT NULL,
  enhanced    TEXT,
  created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX webhook_payloads_created_idx ON webhook_payloads (created_at);

-- The outbox: one event per (webhook, transaction). Unique, so re-ingesting a block never queues an event twice.
-- `position` (slot * 1e6 + index in block) orders first attempts per webhook; `queued_at` starts the retry window
-- (reset by a replay or by switching the webhook on again).
CREATE TABLE webhook_events (
  id               BIGSERIAL PRIMARY KEY,
  webhook_id       UUID NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  signature        TEXT NOT NULL,
  slot             BIGINT NOT NULL,
  position         BIGINT NOT NULL,
  state            TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
  attempts         INT NOT NULL DEFAULT 0,
  next_attempt_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  queued_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_attempt_at  TIMESTAMPTZ,
  last_status      INT,
  last_error       TEXT,
  delivered_at     TIMESTAMPTZ,
  UNIQUE (webhook_id, signature)
);
-- The worker's read: a webhook's due events, earliest due first, then chain order.
CREATE INDEX webhook_events_due_idx ON webhook_events (webhook_id, next_attempt_at, position) WHERE state = 'pending';
-- The delivery log (newest first) and replays (by slot).
CREATE INDEX webhook_events_log_idx ON webhook_events (webhook_id, position DESC);
-- Payload clean-up: is a payload still referenced?
CREATE INDEX webhook_events_signature_idx ON webhook_events (signature);
-- Retention clean-up of finished events.
CREATE INDEX webhook_events_finished_idx ON webhook_events (created_at) WHERE state <> 'pending';

-- Every delivery attempt: HTTP status (NULL when no response came), latency, error.
CREATE TABLE webhook_attempts (
  id          BIGSERIAL PRIMARY KEY,
  event_id    BIGINT NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  webhook_id  UUID NOT NULL,
  attempt     INT NOT NULL,
  at          TIMESTAMPTZ NOT NULL DEFAULT now(),
  ok          BOOLEAN NOT NULL,
  status      INT,
  latency_ms  INT NOT NULL,
  error       TEXT,
  worker      TEXT
);
CREATE INDEX webhook_attempts_event_idx ON webhook_attempts (event_id, attempt);
-- The failure rate of a webhook over the deactivation window.
CREATE INDEX webhook_attempts_window_idx ON webhook_attempts (webhook_id, at);

-- A worker delivers one webhook at a time under a lease (so first attempts go out in chain order); a lease whose
-- holder died expires and another worker takes the webhook over.
CREATE TABLE webhook_leases (
  webhook_id  UUID PRIMARY KEY REFERENCES webhooks (id) ON DELETE CASCADE,
  owner       TEXT NOT NULL,
  until       TIMESTAMPTZ NOT NULL
);
