-- Attempts and failures per webhook and second, kept by the statements that record attempts (one row written per
-- recorded chunk), so that the failure rate behind auto-deactivation reads at most one row per second of its window
-- instead of counting every attempt in it: it is read after every chunk with a failure, and a webhook receiving
-- 1,000 events a second had 3.6 million attempts in the default hour to count each time (src/store/webhook-attempt-counts.ts).
CREATE TABLE webhook_attempt_counts (
  webhook_id  UUID NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  second      TIMESTAMPTZ NOT NULL,
  attempts    INT NOT NULL,
  failures    INT NOT NULL,
  PRIMARY KEY (webhook_id, second)
);

-- The attempts of the last day, so that a failure rate measured across the upgrade sees them.
INSERT INTO webhook_attempt_counts (webhook_id, second, attempts, failures)
SELECT a.webhook_id, date_trunc('second', a.at), count(*), count(*) FILTER (WHERE NOT a.ok)
  FROM webhook_attempts a
 WHERE a.at > now() - interval '1 day' AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = a.webhook_id)
 GROUP BY 1, 2;
