-- ZK Compression (Light Protocol) state, modelled on Photon's tables (helius-labs/photon
-- src/migration/migrations/standard/*.rs) and answering its read methods with one or a few indexed queries.
--
-- Keys, hashes, signatures and account data are BYTEA: every Photon list orders by raw bytes (hash asc, mint asc,
-- owner desc, signature desc, address value), which base58 text order is not. u64 amounts are NUMERIC.
--
-- Idempotence (src/store/zk/*): rows are created once (ON CONFLICT DO NOTHING or fill-only), flags only move one
-- way (spent, nullified_in_tree become true; in_output_queue becomes false), tree nodes and indexed elements are
-- replaced only by an equal or higher seq, and balances change only by the rows a statement actually flipped
-- (RETURNING), so replaying earlier input, merging batches or applying the same batch twice leaves every table
-- identical. A spend seen before the creation of its account leaves a marker row (owner NULL, spent true) that the
-- creation fills in. The indexer slot is the chain checkpoint (ingest_checkpoint), written in the same transaction.

-- Tree metadata: loaded from a config file (tree-metadata.json format) or discovered from chain.
-- tree_type: 1 StateV1, 2 AddressV1, 3 StateV2, 4 AddressV2 (Light TreeType). For V2 address trees queue = tree.
CREATE TABLE zk_trees (
  tree                   BYTEA PRIMARY KEY,
  queue                  BYTEA NOT NULL,
  tree_type              SMALLINT NOT NULL,
  height                 INT NOT NULL,
  root_history_capacity  BIGINT NOT NULL,
  owner                  BYTEA,
  source                 TEXT NOT NULL            -- 'config' | 'chain'
);
CREATE INDEX zk_trees_queue_idx ON zk_trees (queue);

-- Compressed accounts, one row per account hash (every version of an account is its own hash).
CREATE TABLE zk_accounts (
  hash                   BYTEA PRIMARY KEY,
  address                BYTEA,
  owner                  BYTEA,                   -- NULL only on a spend marker (input seen before its creation)
  lamports               NUMERIC(20,0),
  discriminator          NUMERIC(20,0),           -- u64; NULL when the account carries no data
  data                   BYTEA,
  data_hash              BYTEA,
  tree                   BYTEA,
  queue                  BYTEA,
  tree_type              SMALLINT,
  leaf_index             BIGINT,                  -- V2: the output-queue index, which is the leaf index it gets
  seq                    BIGINT,                  -- change-log seq (V1); NULL for V2 outputs
  slot_created           BIGINT,
  spent                  BOOLEAN NOT NULL DEFAULT false,
  -- set by a V2 (batched) spend: the input-queue entry
  nullifier              BYTEA,
  tx_hash                BYTEA,
  nullifier_queue_index  BIGINT,
  -- V2 queue state, derived from zk_batch_events (so an event seen before the account still applies)
  in_output_queue        BOOLEAN NOT NULL DEFAULT false,
  nullified_in_tree      BOOLEAN NOT NULL DEFAULT false
);
-- getCompressedAccountsByOwner: owner's unspent accounts in hash order (keyset: hash > cursor).
CREATE INDEX zk_accounts_owner_idx ON zk_accounts (owner, hash) WHERE NOT spent;
-- by address: the live version of an addressed account.
CREATE INDEX zk_accounts_address_idx ON zk_accounts (address) WHERE NOT spent AND address IS NOT NULL;
-- by leaf position (proofs by index, the accounts a batch append covers).
CREATE INDEX zk_accounts_leaf_idx ON zk_accounts (tree, leaf_index);
-- by input-queue position (the entries a batch nullify covers).
CREATE INDEX zk_accounts_nullifier_queue_idx ON zk_accounts (tree, nullifier_queue_index)
  WHERE nullifier_queue_index IS NOT NULL;
-- getQueueElements: the pending output / input queues only (small partial indexes).
CREATE INDEX zk_accounts_output_queue_idx ON zk_accounts (tree, leaf_index) WHERE in_output_queue;
CREATE INDEX zk_accounts_input_queue_idx ON zk_accounts (tree, nullifier_queue_index)
  WHERE nullifier_queue_index IS NOT NULL AND NOT nullified_in_tree;

-- Token data of compressed token accounts (same hash as the zk_accounts row; spent kept in step with it).
-- state: 0 initialized, 1 frozen.
CREATE TABLE zk_token_accounts (
  hash      BYTEA PRIMARY KEY,
  owner     BYTEA NOT NULL,
  mint      BYTEA NOT NULL,
  amount    NUMERIC(20,0) NOT NULL,
  delegate  BYTEA,
  state     SMALLINT NOT NULL,
  tlv       BYTEA,
  spent     BOOLEAN NOT NULL DEFAULT false
);
-- getCompressedTokenAccountsByOwner / ByDelegate: (mint, hash) order, keyset (mint, hash) > cursor.
CREATE INDEX zk_token_accounts_owner_idx ON zk_token_accounts (owner, mint, hash) WHERE NOT spent;
CREATE INDEX zk_token_accounts_delegate_idx ON zk_token_accounts (delegate, mint, hash)
  WHERE NOT spent AND delegate IS NOT NULL;

-- Sum of unspent lamports per owner / unspent token amounts per (owner, mint). A row exists for every owner (pair)
-- any created account ever had, so it reads 0 after everything was spent (as Photon's rows do) whatever the order
-- or batching of the input.
CREATE TABLE zk_owner_balances (
  owner     BYTEA PRIMARY KEY,
  lamports  NUMERIC NOT NULL
);
CREATE TABLE zk_token_owner_balances (
  owner   BYTEA NOT NULL,
  mint    BYTEA NOT NULL,
  amount  NUMERIC NOT NULL,
  PRIMARY KEY (owner, mint)                       -- getCompressedTokenBalancesByOwner: mint order
);
-- getCompressedMintTokenHolders: amount desc, owner desc (read backwards).
CREATE INDEX zk_token_owner_balances_mint_idx ON zk_token_owner_balances (mint, amount, owner);

-- State Merkle tree nodes (V1 change logs, V2 batch updates), one row per node, newest seq wins.
-- node_idx is the heap index (root = 1); level 0 = leaves.
CREATE TABLE zk_state_nodes (
  tree      BYTEA NOT NULL,
  node_idx  BIGINT NOT NULL,
  leaf_idx  BIGINT,
  level     INT NOT NULL,
  hash      BYTEA NOT NULL,
  seq       BIGINT,
  PRIMARY KEY (tree, node_idx)
);

-- Indexed (address) Merkle tree elements, newest seq per leaf. Values are 32-byte big-endian field elements, so byte
-- order is numeric order and the low element of x (largest value < x) is one backward step on (tree, value).
CREATE TABLE zk_indexed_elements (
  tree        BYTEA NOT NULL,
  leaf_index  BIGINT NOT NULL,
  value       BYTEA NOT NULL CHECK (octet_length(value) = 32),
  next_index  BIGINT NOT NULL,
  next_value  BYTEA NOT NULL CHECK (octet_length(next_value) = 32),
  seq         BIGINT,
  PRIMARY KEY (tree, leaf_index)
);
CREATE UNIQUE INDEX zk_indexed_elements_value_idx ON zk_indexed_elements (tree, value);

-- V2 address queue: addresses inserted and not yet appended to their tree.
CREATE TABLE zk_address_queue (
  tree         BYTEA NOT NULL,
  address      BYTEA NOT NULL,
  queue_index  BIGINT NOT NULL,
  PRIMARY KEY (tree, address)
);
CREATE INDEX zk_address_queue_index_idx ON zk_address_queue (tree, queue_index);

-- V2 batch events (kind: 1 append, 2 nullify, 3 address append), one per tree root update. Kept so that queue
-- flags follow from them whatever order the events and the accounts/addresses they cover arrive in.
CREATE TABLE zk_batch_events (
  tree            BYTEA NOT NULL,
  seq             BIGINT NOT NULL,
  kind            SMALLINT NOT NULL,
  old_next_index  BIGINT NOT NULL,
  new_next_index  BIGINT NOT NULL,
  slot            BIGINT NOT NULL,
  signature       BYTEA,
  PRIMARY KEY (tree, seq)
);
CREATE INDEX zk_batch_events_kind_idx ON zk_batch_events (tree, kind, old_next_index);

-- Transactions (compression ones, and the latest non-compression ones when the indexer keeps them).
CREATE TABLE zk_transactions (
  signature         BYTEA PRIMARY KEY,
  slot              BIGINT NOT NULL,
  block_time        BIGINT,
  uses_compression  BOOLEAN NOT NULL,
  error             TEXT
);
-- getLatestNonVotingSignatures / getLatestCompressionSignatures: slot desc, signature desc (read backwards).
CREATE INDEX zk_transactions_order_idx ON zk_transactions (slot, signature);
CREATE INDEX zk_transactions_compression_idx ON zk_transactions (slot, signature) WHERE uses_compression;

-- Account hash <-> transaction links (getCompressionSignaturesForAccount; opened/closed per transaction).
CREATE TABLE zk_account_transactions (
  hash       BYTEA NOT NULL,
  signature  BYTEA NOT NULL,
  slot       BIGINT NOT NULL,
  opened     BOOLEAN NOT NULL DEFAULT false,
  closed     BOOLEAN NOT NULL DEFAULT false,
  PRIMARY KEY (hash, signature)
);
CREATE INDEX zk_account_transactions_signature_idx ON zk_account_transactions (signature);

-- Signature lists by owner (kind 1), token owner (2) and address (3): the links joined with the accounts they
-- touch, kept in (slot, signature) order so every page is one index range scan (newest first, read backwards).
CREATE TABLE zk_signature_index (
  kind       SMALLINT NOT NULL,
  key        BYTEA NOT NULL,
  slot       BIGINT NOT NULL,
  signature  BYTEA NOT NULL,
  PRIMARY KEY (kind, key, slot, signature)
);
