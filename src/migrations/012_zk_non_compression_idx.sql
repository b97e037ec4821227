-- The ingester keeps only the newest 1000 non-compression transactions (getLatestNonVotingSignatures); finding the
-- edge of that window and deleting what is older walks this small index instead of the whole transaction order.
CREATE INDEX zk_transactions_non_compression_idx ON zk_transactions (slot, signature) WHERE NOT uses_compression;
