-- Off-chain metadata: the JSON documents that on-chain metadata points to (Token Metadata / Core / cNFT / Token-2022
-- `uri`), fetched by the off-chain fetcher (src/offchain/fetcher.ts), one row per uri exactly as it appears on chain
-- (the key assets reference through `content.json_uri`).
--
-- A row is due when next_attempt_at <= now(). Workers claim due rows with FOR UPDATE SKIP LOCKED, pushing
-- next_attempt_at past the claim's lease and stamping claim_token; only the holder of the token may record the
-- result, so several processes can run the fetcher and a uri is never fetched twice at the same time.

CREATE TABLE offchain_metadata (
  uri              TEXT PRIMARY KEY,
  status           TEXT NOT NULL DEFAULT 'pending',  -- pending (no content yet, will retry) | ok (content) | failed (gave up)
  content          JSONB,                            -- the last JSON document fetched successfully (kept when a refresh fails)
  error            TEXT,                             -- the last failure, NULL after a success
  attempts         INT NOT NULL DEFAULT 0,           -- failed attempts since the last success
  fetched_at       TIMESTAMPTZ,                      -- last success
  last_attempt_at  TIMESTAMPTZ,
  next_attempt_at  TIMESTAMPTZ,                      -- when the row is due; NULL = nothing scheduled
  claim_token      TEXT,                             -- the worker claim that may record the result
  created_at       TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX offchain_metadata_due_idx ON offchain_metadata (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
