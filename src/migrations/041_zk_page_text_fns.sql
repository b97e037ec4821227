-- Pages of compressed accounts by owner (getCompressedAccountsByOwner[V2]) and of compressed token accounts by token
-- owner or delegate (getCompressedTokenAccountsBy{Owner,Delegate}[V2]) as ONE row holding the answer's items as
-- JSON text (src/store/zk/account-reads.ts ownerAccountsPageText / tokenAccountsPageText, issue #21), so that the
-- gateway neither receives a page as rows of many columns nor builds and serialises objects for it. The text is what
-- src/api/zk/serialize.ts (accountV1 or accountV2, tokenData) writes for each item, with one exception: base58 has no
-- PostgreSQL function, so each key is a placeholder, chr(1) for a key that recurs across rows (owner, tree, queue,
-- mint, token owner, delegate) and chr(2) for one of the row's own (hash, address, data hash), and `keys` holds their
-- 32-byte values in the order of the placeholders (src/api/zk/page-text.ts writes them). u64 values are the
-- NUMERIC(20,0) digits, data and tlv base64 without line breaks, absent values null, as the reference writes them.
-- Also returned: the number of items, the last item's cursor key and the indexed slot of the same snapshot
-- (CHECKPOINT_SLOT_SQL), also for an empty page.
--
-- PL/pgSQL functions so that their statements are planned once per connection (generic plan forced) instead of on
-- every request: planning took several times the execution for an owner of a few accounts. The conditions are written
-- so that one generic plan serves every page: a token page's mint filter is a range (mint_lo = mint_hi = the mint;
-- without one '' .. 33 bytes of 0xff, above every 32-byte mint) and its cursor a row comparison (without one
-- ('', ''), below every row), index conditions on (owner|delegate, mint, hash); an owner page's memcmp filters are
-- arrays (none: the condition is true without evaluating them) and its data slice an optional offset and length.
-- STABLE: the caller's snapshot.

-- Photon's Account (V1) or AccountV2 of an account's columns, with placeholders for hash, address, data hash,
-- owner, tree (and queue).
CREATE FUNCTION zk_account_json(v2 BOOLEAN, address BYTEA, data_hash BYTEA, discriminator NUMERIC, data BYTEA,
                                lamports NUMERIC, leaf_index BIGINT, seq BIGINT, slot_created BIGINT,
                                in_output_queue BOOLEAN, tree_type SMALLINT) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT '{"hash":"' || chr(2) || '","address":'
      || CASE WHEN address IS NULL THEN 'null' ELSE '"' || chr(2) || '"' END
      || ',"data":'
      || CASE WHEN data_hash IS NULL THEN 'null'
              ELSE '{"discriminator":' || coalesce(discriminator::text, '0') || ',"data":"'
                   || coalesce(replace(encode(data, 'base64'), chr(10), ''), '') || '","dataHash":"' || chr(2) || '"}' END
      || ',"owner":"' || chr(1) || '","lamports":' || coalesce(lamports::text, '0')
      || CASE WHEN v2
              THEN ',"leafIndex":' || coalesce(leaf_index::text, '0') || ',"seq":' || coalesce(seq::text, 'null')
                   || ',"slotCreated":' || coalesce(slot_created::text, '0') || ',"proveByIndex":' || coalesce(in_output_queue::text, 'null')
                   || ',"merkleContext":{"treeType":' || coalesce(tree_type::text, '0') || ',"tree":"' || chr(1) || '","queue":"' || chr(1)
                   || '","cpiContext":null,"nextTreeContext":null}}'
              ELSE ',"tree":"' || chr(1) || '","leafIndex":' || coalesce(leaf_index::text, '0') || ',"seq":' || coalesce(seq::text, 'null')
                   || ',"slotCreated":' || coalesce(slot_created::text, '0') || '}' END
$$;

-- The keys of zk_account_json's placeholders, in their order (NULL when a key every account has is missing).
CREATE FUNCTION zk_account_keys(v2 BOOLEAN, hash BYTEA, address BYTEA, data_hash BYTEA, owner BYTEA, tree BYTEA, queue BYTEA)
RETURNS BYTEA LANGUAGE sql IMMUTABLE AS $$
  SELECT hash || coalesce(address, '\x'::bytea) || coalesce(data_hash, '\x'::bytea) || owner || tree
      || CASE WHEN v2 THEN queue ELSE '\x'::bytea END
$$;

-- Photon's TokenData, with placeholders for mint, owner (and delegate).
CREATE FUNCTION zk_token_data_json(amount NUMERIC, delegate BYTEA, state SMALLINT, tlv BYTEA) RETURNS TEXT
LANGUAGE sql IMMUTABLE AS $$
  SELECT '{"mint":"' || chr(1) || '","owner":"' || chr(1) || '","amount":' || coalesce(amount::text, '0')
      || ',"delegate":' || CASE WHEN delegate IS NULL THEN 'null' ELSE '"' || chr(1) || '"' END
      || ',"state":"' || CASE WHEN state = 1 THEN 'frozen' ELSE 'initialized' END
      || '","tlv":' || CASE WHEN tlv IS NULL THEN 'null' ELSE '"' || replace(encode(tlv, 'base64'), chr(10), '') || '"' END
      || '}'
$$;

CREATE FUNCTION zk_token_accounts_page(by_delegate BOOLEAN, holder BYTEA, mint_lo BYTEA, mint_hi BYTEA,
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
                     '{"account":' || zk_account_json(v2, a.address, a.data_hash, a.discriminator, a.data, a.lamports, a.leaf_index,
                                                      a.seq, a.slot_created, a.in_output_queue, a.tree_type)
                     || ',"tokenData":' || zk_token_data_json(k.amount, k.delegate, k.state, k.tlv) || '}' AS item,
                     zk_account_keys(v2, a.hash, a.address, a.data_hash, a.owner, a.tree, a.queue)
                     || k.mint || k.owner || coalesce(k.delegate, '\x'::bytea) AS keys
                FROM zk_token_accounts k JOIN zk_accounts a ON a.hash = k.hash
               WHERE k.delegate = holder AND NOT k.spent AND k.delegate IS NOT NULL
                 AND k.mint >= mint_lo AND k.mint <= mint_hi AND (k.mint, k.hash) > (after_mint, after_hash)
               ORDER BY k.mint, k.hash LIMIT lim) p;
  ELSE
    RETURN QUERY
      SELECT string_agg(p.item, ',' ORDER BY p.mint, p.hash), string_agg(p.keys, '\x'::bytea ORDER BY p.mint, p.hash),
             count(*)::int, (array_agg(p.mint || p.hash ORDER BY p.mint DESC, p.hash DESC))[1],
             (SELECT c.slot FROM ingest_checkpoint c WHERE c.id = 'chain')
        FROM (SELECT k.mint, k.hash,
                     '{"account":' || zk_account_json(v2, a.address, a.data_hash, a.discriminator, a.data, a.lamports, a.leaf_index,
                                                      a.seq, a.slot_created, a.in_output_queue, a.tree_type)
                     || ',"tokenData":' || zk_token_data_json(k.amount, k.delegate, k.state, k.tlv) || '}' AS item,
                     zk_account_keys(v2, a.hash, a.address, a.data_hash, a.owner, a.tree, a.queue)
                     || k.mint || k.owner || coalesce(k.delegate, '\x'::bytea) AS keys
                FROM zk_token_accounts k JOIN zk_accounts a ON a.hash = k.hash
               WHERE k.owner = holder AND NOT k.spent
                 AND k.mint >= mint_lo AND k.mint <= mint_hi AND (k.mint, k.hash) > (after_mint, after_hash)
               ORDER BY k.mint, k.hash LIMIT lim) p;
  END IF;
END
$$;

-- An owner's unspent accounts in Photon's order (leaf index, hash) after the account `after_account` (the cursor: the last
-- hash of the previous page; a hash naming no stored account gives an empty page), each data filter i a memcmp of
-- filter_bytes[i] at filter_offsets[i], data cut to the slice when slice_offset is given. last_key is the last hash.
CREATE FUNCTION zk_owner_accounts_page(holder BYTEA, after_account BYTEA, filter_offsets INT[], filter_bytes BYTEA[],
                                       slice_offset INT, slice_length INT, lim INT, v2 BOOLEAN)
RETURNS TABLE (items TEXT, keys BYTEA, n INT, last_key BYTEA, ctx_slot BIGINT)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  after_leaf BIGINT;
  after_hash BYTEA;
  filters INT := coalesce(cardinality(filter_offsets), 0);
BEGIN
  IF after_account IS NULL THEN
    RETURN QUERY
      SELECT string_agg(p.item, ',' ORDER BY p.leaf_index, p.hash), string_agg(p.keys, '\x'::bytea ORDER BY p.leaf_index, p.hash),
             count(*)::int, (array_agg(p.hash ORDER BY p.leaf_index DESC, p.hash DESC))[1],
             (SELECT c.slot FROM ingest_checkpoint c WHERE c.id = 'chain')
        FROM (SELECT a.leaf_index, a.hash,
                     zk_account_json(v2, a.address, a.data_hash, a.discriminator,
                                     CASE WHEN slice_offset IS NULL THEN a.data ELSE substring(a.data FROM slice_offset + 1 FOR slice_length) END,
                                     a.lamports, a.leaf_index, a.seq, a.slot_created, a.in_output_queue, a.tree_type) AS item,
                     zk_account_keys(v2, a.hash, a.address, a.data_hash, a.owner, a.tree, a.queue) AS keys
                FROM zk_accounts a
               WHERE a.owner = holder AND NOT a.spent
                 AND (filters = 0 OR NOT EXISTS (SELECT 1 FROM unnest(filter_offsets, filter_bytes) f(o, b)
                                                  WHERE substring(a.data FROM f.o + 1 FOR length(f.b)) IS DISTINCT FROM f.b))
               ORDER BY a.leaf_index, a.hash LIMIT lim) p;
  ELSE
    -- no row: both NULL, and the row comparison below holds for no account
    SELECT c.leaf_index, c.hash INTO after_leaf, after_hash FROM zk_accounts c WHERE c.hash = after_account;
    RETURN QUERY
      SELECT string_agg(p.item, ',' ORDER BY p.leaf_index, p.hash), string_agg(p.keys, '\x'::bytea ORDER BY p.leaf_index, p.hash),
             count(*)::int, (array_agg(p.hash ORDER BY p.leaf_index DESC, p.hash DESC))[1],
             (SELECT c.slot FROM ingest_checkpoint c WHERE c.id = 'chain')
        FROM (SELECT a.leaf_index, a.hash,
                     zk_account_json(v2, a.address, a.data_hash, a.discriminator,
                                     CASE WHEN slice_offset IS NULL THEN a.data ELSE substring(a.data FROM slice_offset + 1 FOR slice_length) END,
                                     a.lamports, a.leaf_index, a.seq, a.slot_created, a.in_output_queue, a.tree_type) AS item,
                     zk_account_keys(v2, a.hash, a.address, a.data_hash, a.owner, a.tree, a.queue) AS keys
                FROM zk_accounts a
               WHERE a.owner = holder AND NOT a.spent AND (a.leaf_index, a.hash) > (after_leaf, after_hash)
                 AND (filters = 0 OR NOT EXISTS (SELECT 1 FROM unnest(filter_offsets, filter_bytes) f(o, b)
                                                  WHERE substring(a.data FROM f.o + 1 FOR length(f.b)) IS DISTINCT FROM f.b))
               ORDER BY a.leaf_index, a.hash LIMIT lim) p;
  END IF;
END
$$
