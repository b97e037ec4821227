-- A compressed token account's row carries its account's fields too (issue #21), so that a page of token accounts by
-- owner or delegate (zk_token_accounts_page, getCompressedTokenAccountsBy{Owner,Delegate}[V2]) reads the owner or
-- delegate index and one row per item instead of also looking up each item's zk_accounts row by hash: for an owner
-- of 10 accounts PostgreSQL read ≈ 54 buffers, most of them the hash index and the heap of zk_accounts.
--
-- The copies are written with the token row (src/store/zk/accounts.ts accountsStatement, which takes them from the
-- account row the same statement created or filled in) and the one field that changes after creation,
-- in_output_queue, is kept in step by the statements that change it on zk_accounts (the V2 queue flags on append and
-- nullify events, and the spend). account_owner is the account's owner (the token program), `owner` the token owner.
ALTER TABLE zk_token_accounts
  ADD COLUMN account_owner   BYTEA,
  ADD COLUMN address         BYTEA,
  ADD COLUMN lamports        NUMERIC(20,0),
  ADD COLUMN discriminator   NUMERIC(20,0),
  ADD COLUMN data            BYTEA,
  ADD COLUMN data_hash       BYTEA,
  ADD COLUMN tree            BYTEA,
  ADD COLUMN queue           BYTEA,
  ADD COLUMN tree_type       SMALLINT,
  ADD COLUMN leaf_index      BIGINT,
  ADD COLUMN seq             BIGINT,
  ADD COLUMN slot_created    BIGINT,
  ADD COLUMN in_output_queue BOOLEAN NOT NULL DEFAULT false;

UPDATE zk_token_accounts k
   SET account_owner = a.owner, address = a.address, lamports = a.lamports, discriminator = a.discriminator,
       data = a.data, data_hash = a.data_hash, tree = a.tree, queue = a.queue, tree_type = a.tree_type,
       leaf_index = a.leaf_index, seq = a.seq, slot_created = a.slot_created, in_output_queue = a.in_output_queue
  FROM zk_accounts a
 WHERE a.hash = k.hash;

-- Migration 041's function, reading the token rows alone.
CREATE OR REPLACE FUNCTION zk_token_accounts_page(by_delegate BOOLEAN, holder BYTEA, mint_lo BYTEA, mint_hi BYTEA,
                                                  after_mint BYTEA, after_hash BYTEA, lim INT, v2 BOOLEAN)
RETURNS TABLE (items TEXT, keys BYTEA, n INT, last_key BYTEA, ctx_slot BIGINT)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  IF by_delegate THEN
    RETURN QUERY
      SELECT string_agg(p.item, ',' ORDER BY p.mint, p.hash), string_agg(p.keys, '\x'::bytea ORDER BY p.mint, p.hash),
             count(*)::int, (array_agg(p.mint || p.hash ORDER BY p.mint DESC, p.hash DESC))[1],
             (SELECT c.slot FROM ingest_checkpoint c WHERE c.id = 'chain')
        FROM (SELECT k.mint, k.hash,
                     '{"account":' || zk_account_json(v2, k.address, k.data_hash, k.discriminator, k.data, k.lamports, k.leaf_index,
                                                      k.seq, k.slot_created, k.in_output_queue, k.tree_type)
                     || ',"tokenData":' || zk_token_data_json(k.amount, k.delegate, k.state, k.tlv) || '}' AS item,
                     zk_account_keys(v2, k.hash, k.address, k.data_hash, k.account_owner, k.tree, k.queue)
                     || k.mint || k.owner || coalesce(k.delegate, '\x'::bytea) AS keys
                FROM zk_token_accounts k
               WHERE k.delegate = holder AND NOT k.spent AND k.delegate IS NOT NULL
                 AND k.mint >= mint_lo AND k.mint <= mint_hi AND (k.mint, k.hash) > (after_mint, after_hash)
               ORDER BY k.mint, k.hash LIMIT lim) p;
  ELSE
    RETURN QUERY
      SELECT string_agg(p.item, ',' ORDER BY p.mint, p.hash), string_agg(p.keys, '\x'::bytea ORDER BY p.mint, p.hash),
             count(*)::int, (array_agg(p.mint || p.hash ORDER BY p.mint DESC, p.hash DESC))[1],
             (SELECT c.slot FROM ingest_checkpoint c WHERE c.id = 'chain')
        FROM (SELECT k.mint, k.hash,
                     '{"account":' || zk_account_json(v2, k.address, k.data_hash, k.discriminator, k.data, k.lamports, k.leaf_index,
                                                      k.seq, k.slot_created, k.in_output_queue, k.tree_type)
                     || ',"tokenData":' || zk_token_data_json(k.amount, k.delegate, k.state, k.tlv) || '}' AS item,
                     zk_account_keys(v2, k.hash, k.address, k.data_hash, k.account_owner, k.tree, k.queue)
                     || k.mint || k.owner || coalesce(k.delegate, '\x'::bytea) AS keys
                FROM zk_token_accounts k
               WHERE k.owner = holder AND NOT k.spent
                 AND k.mint >= mint_lo AND k.mint <= mint_hi AND (k.mint, k.hash) > (after_mint, after_hash)
               ORDER BY k.mint, k.hash LIMIT lim) p;
  END IF;
END
$$;
