-- The memo of each transaction as agave's getSignaturesForAddress reports it ("[len] text; …"); NULL = none.
-- Rows written before this migration read '' (not known): an answer that needs their memo goes to the cluster, and
-- re-ingesting their slot fills it in. (ADD COLUMN with a constant default changes no row; the default is then
-- dropped so that new rows carry what the ingester writes.)
ALTER TABLE transactions ADD COLUMN memo TEXT DEFAULT '';
ALTER TABLE transactions ALTER COLUMN memo DROP DEFAULT;
