-- solgate spine: chain data, wallet views, identities, API keys.
-- Conventions: slots/indexes BIGINT/INT; u64 amounts NUMERIC(20,0) (signed deltas NUMERIC(21,0));
-- `pos` = slot * 1000000 + index in block: the order in which state changes apply. Every current-state
-- column group carries its own pos and is only overwritten by a change at the same or a later pos.

CREATE TABLE ingest_checkpoint (
  id          TEXT PRIMARY KEY,            -- 'chain'
  slot        BIGINT NOT NULL,
  updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE blocks (
  slot          BIGINT PRIMARY KEY,
  parent_slot   BIGINT,
  blockhash     TEXT,
  block_time    BIGINT,
  block_height  BIGINT,
  tx_count      INT NOT NULL
);

CREATE TABLE transactions (
  signature   TEXT PRIMARY KEY,
  slot        BIGINT NOT NULL,
  tx_index    INT NOT NULL,                -- 0 when the source does not record the position
  block_time  BIGINT,
  fee         BIGINT,                      -- NULL when the source carries no meta
  fee_payer   TEXT NOT NULL,
  err         JSONB,                       -- NULL on success
  has_meta    BOOLEAN NOT NULL
);
CREATE INDEX transactions_slot_idx ON transactions (slot, tx_index);

-- Which addresses a transaction concerns. relation: 1 = references the address directly (account key),
-- 2 = changed the balance of a token account the address owns, 3 = touched such a token account.
CREATE TABLE address_transactions (
  address    TEXT NOT NULL,
  slot       BIGINT NOT NULL,
  tx_index   INT NOT NULL,
  signature  TEXT NOT NULL,
  relation   SMALLINT NOT NULL,
  changes    JSONB,                        -- [{mint, amount (signed raw, string), decimals}] for this address
  PRIMARY KEY (address, slot, tx_index, signature)
);

CREATE TABLE sol_balances (
  address   TEXT PRIMARY KEY,
  lamports  NUMERIC(20,0) NOT NULL,
  pos       BIGINT NOT NULL
);

CREATE TABLE mints (
  address               TEXT PRIMARY KEY,
  program               TEXT,
  decimals              SMALLINT,
  mint_authority        TEXT,
  mint_authority_pos    BIGINT,
  freeze_authority      TEXT,
  freeze_authority_pos  BIGINT,
  supply_base           NUMERIC(20,0),     -- absolute supply as of supply_pos
  supply_pos            BIGINT,
  supply_ord            INT,
  init_pos              BIGINT
);

-- Supply changes (mintTo/burn) keyed by the transaction that made them, so replays add nothing twice.
-- Current supply = supply_base + sum(delta WHERE (pos, ord) > (supply_pos, supply_ord)).
CREATE TABLE mint_supply_changes (
  mint       TEXT NOT NULL,
  signature  TEXT NOT NULL,
  ord        INT NOT NULL,
  pos        BIGINT NOT NULL,
  delta      NUMERIC(21,0) NOT NULL,
  PRIMARY KEY (mint, signature, ord)
);

CREATE TABLE token_accounts (
  address           TEXT PRIMARY KEY,
  mint              TEXT,                  -- NULL until a source tells (e.g. an approve seen before any balance)
  owner             TEXT,
  program           TEXT,
  closed            BOOLEAN NOT NULL DEFAULT false,
  owner_pos         BIGINT,                -- mint/owner/program/closed
  amount            NUMERIC(20,0) NOT NULL DEFAULT 0,
  amount_pos        BIGINT,
  delegate          TEXT,
  delegated_amount  NUMERIC(20,0),
  delegate_pos      BIGINT,
  frozen            BOOLEAN NOT NULL DEFAULT false,
  frozen_pos        BIGINT,
  close_authority   TEXT,
  close_authority_pos BIGINT
);
CREATE INDEX token_accounts_owner_idx ON token_accounts (owner, mint);
CREATE INDEX token_accounts_mint_idx ON token_accounts (mint);

-- Token-2022 extensions of mints and token accounts, latest state per (target, extension).
CREATE TABLE token_extensions (
  target     TEXT NOT NULL,
  extension  TEXT NOT NULL,
  data       JSONB NOT NULL,
  pos        BIGINT NOT NULL,
  PRIMARY KEY (target, extension)
);

-- One row per movement per wallet perspective (a transfer a→b is an 'out' row for a and an 'in' row for b).
CREATE TABLE wallet_transfers (
  wallet        TEXT NOT NULL,
  slot          BIGINT NOT NULL,
  tx_index      INT NOT NULL,
  signature     TEXT NOT NULL,
  ord           INT NOT NULL,
  direction     CHAR(1) NOT NULL,          -- 'i' | 'o'
  counterparty  TEXT NOT NULL,
  mint          TEXT NOT NULL,
  amount        NUMERIC(20,0) NOT NULL,
  decimals      SMALLINT NOT NULL,
  block_time    BIGINT,
  PRIMARY KEY (wallet, slot, tx_index, signature, ord, direction)
);

-- Each wallet's first incoming SOL transfer.
CREATE TABLE wallet_funding (
  wallet      TEXT PRIMARY KEY,
  funder      TEXT NOT NULL,
  lamports    NUMERIC(20,0) NOT NULL,
  signature   TEXT NOT NULL,
  slot        BIGINT NOT NULL,
  tx_index    INT NOT NULL,
  ord         INT NOT NULL,
  block_time  BIGINT
);

-- SPL Name Service accounts (domains and reverse-lookup records).
CREATE TABLE name_records (
  address       TEXT PRIMARY KEY,
  parent        TEXT NOT NULL,
  owner         TEXT NOT NULL,
  class         TEXT NOT NULL,
  reverse_name  TEXT,                      -- domain name stored by a reverse-lookup record
  slot          BIGINT NOT NULL,
  write_version NUMERIC(20,0) NOT NULL DEFAULT 0
);
CREATE INDEX name_records_owner_idx ON name_records (owner, parent);

-- Known-entity registry for the identity endpoints.
CREATE TABLE identities (
  address   TEXT PRIMARY KEY,
  name      TEXT NOT NULL,
  type      TEXT NOT NULL,
  category  TEXT NOT NULL,
  tags      TEXT[] NOT NULL DEFAULT '{}'
);

-- API keys: the secret is never stored, only its SHA-256.
CREATE TABLE api_keys (
  id           TEXT PRIMARY KEY,
  name         TEXT NOT NULL,
  key_hash     TEXT NOT NULL,
  allowed_ips  TEXT[] NOT NULL DEFAULT '{}',
  plan         TEXT NOT NULL DEFAULT 'developer',
  created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
  expires_at   TIMESTAMPTZ,
  revoked_at   TIMESTAMPTZ
);
