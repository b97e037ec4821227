-- getCompressedAccountsByOwner(V2) lists an owner's unspent accounts in Photon's order, leaf index then hash
-- (helius-labs/photon get_compressed_accounts_by_owner/common.rs `ORDER BY leaf_index, hash`). The cursor stays the
-- last account's hash (compat-facts §3.4); the next page continues after that account's (leaf_index, hash).
DROP INDEX zk_accounts_owner_idx;
CREATE INDEX zk_accounts_owner_idx ON zk_accounts (owner, leaf_index, hash) WHERE NOT spent;
