-- The enhanced transaction type (src/enhanced classifyTransaction: TRANSFER, TOKEN_MINT, BURN, COMPRESSED_NFT_MINT,
-- UNKNOWN, ...) of each indexed transaction, computed at ingest. NULL for transactions written before this
-- migration: the wire transactions are not stored, so they cannot be classified afterwards (re-ingesting their
-- slots fills the type in); they never match a `type` filter.
ALTER TABLE transactions ADD COLUMN enhanced_type TEXT;

-- The same type on every address link, so "this wallet's history of type T, newest first" (GET
-- /v1/wallet/{wallet}/history?type=T) is one backward range scan of this index, however many other transactions
-- the wallet has. UNKNOWN (most transactions of programs the classifier does not know) is never a filter value
-- and is left out, which keeps the index small; queries repeat the predicate so the planner can use it.
ALTER TABLE address_transactions ADD COLUMN enhanced_type TEXT;
CREATE INDEX address_transactions_type_idx ON address_transactions (address, enhanced_type, slot, tx_index, signature)
  WHERE enhanced_type <> 'UNKNOWN';
