-- Whether the transaction wrote the address, on its direct links (relation 1: the address is one of its account
-- keys): true for the keys a successful transaction wrote (static writable keys by the message header, then the
-- writable keys loaded from lookup tables), for a failed one only its fee payer (and its nonce account, which the
-- runtime advances even then); false for the keys it only read. NULL when not known: rows written before this
-- migration, records without a message header (both counted as written by readers), and relations 2 and 3 (the
-- address is no account key of the transaction). Read by `changedSinceSlot` of getProgramAccountsV2 /
-- getTokenAccountsByOwnerV2 (src/api/rpc/changed-since.ts) through the primary key's (address, slot) prefix; no
-- default, so adding it does not rewrite the table.
ALTER TABLE address_transactions ADD COLUMN writable BOOLEAN;
