-- Compute-unit prices of the recent blocks, for getPriorityFeeEstimate (src/api/rpc/methods/getPriorityFeeEstimate.ts):
-- per slot, the prices (micro-lamports per CU; 0 without SetComputeUnitPrice) of its successful non-vote
-- transactions, globally (account '*', with the slot's vote count) and per writable account. Written with each block;
-- slots far behind the newest are deleted as ingestion goes on.
CREATE TABLE priority_fees (
  slot     BIGINT NOT NULL,
  account  TEXT NOT NULL,
  rates    BIGINT[] NOT NULL,
  votes    INT NOT NULL DEFAULT 0,
  PRIMARY KEY (account, slot)
);
CREATE INDEX priority_fees_slot_idx ON priority_fees (slot);
