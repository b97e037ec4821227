-- Webhooks (issue #6): the management API's rows (/v0/webhooks) and the address index the delivery matcher reads.
--
-- Scope: API keys have no account (src/store/keys.ts: id, name, plan, ...), so a webhook belongs to the key that
-- created it (key_id); every read and write is filtered by it, and another key's webhook is "not found". Deleting a
-- key row deletes its webhooks (keys are normally revoked, not deleted, so revoked keys keep theirs).
CREATE TABLE webhooks (
  id                UUID PRIMARY KEY,
  key_id            TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  url               TEXT NOT NULL,
  webhook_type      TEXT NOT NULL CHECK (webhook_type IN ('enhanced', 'raw', 'discord', 'enhancedDevnet', 'rawDevnet', 'discordDevnet')),
  -- Enhanced transaction types (src/enhanced/transaction-types.ts), 'ANY' matching all; validated by the API.
  transaction_types TEXT[] NOT NULL DEFAULT '{}',
  txn_status        TEXT NOT NULL DEFAULT 'all' CHECK (txn_status IN ('all', 'success', 'failed')),
  encoding          TEXT NOT NULL DEFAULT 'jsonParsed',
  -- Sent verbatim as the Authorization header of deliveries; NULL = none.
  auth_header       TEXT,
  active            BOOLEAN NOT NULL DEFAULT true,
  -- Per-webhook signing secret for the HMAC of deliveries (random, shown once in the create response); kept in
  -- clear because the delivery worker signs with it.
  secret            TEXT NOT NULL,
  address_count     INT NOT NULL DEFAULT 0,
  created_at        TIMESTAMPTZ NOT NULL DEFAULT now(),
  updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- List a key's webhooks in creation order; count them for the plan limit.
CREATE INDEX webhooks_key_idx ON webhooks (key_id, created_at, id);

-- accountAddresses, one row per (webhook, address): deduplicated by the primary key, `ord` keeps the order the
-- client gave (echoed back by the API).
CREATE TABLE webhook_addresses (
  webhook_id  UUID NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  address     TEXT NOT NULL,
  ord         INT NOT NULL,
  PRIMARY KEY (webhook_id, address)
);

-- The delivery matcher's lookup: which webhooks watch any of a transaction's account keys.
CREATE INDEX webhook_addresses_address_idx ON webhook_addresses (address, webhook_id);
