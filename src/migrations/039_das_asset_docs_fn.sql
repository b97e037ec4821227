-- The stored documents of a set of asset ids (readAssetDocs in src/store/das-index.ts, issue #21): what getAsset and
-- getAssetBatch read, as a PL/pgSQL function so that its one query is planned once per connection (PL/pgSQL keeps
-- the plans of its statements, generic plan forced: `id = ANY(ids)` by primary key whatever the ids) instead of on
-- every call: planning the statement (pending-mark check, off-chain document subquery) took ≈0.6 ms, several times
-- its execution. STABLE: one snapshot, the caller's, so a document without a pending mark is the rendering of the
-- sources that snapshot sees (docStaleSql in das-index.ts). Same columns as docColumnsSql. The body is an E'' string
-- with its one semicolon written \073 (migrations are split into statements at every semicolon).
CREATE FUNCTION das_asset_docs(ids TEXT[]) RETURNS TABLE (id TEXT, doc TEXT, stale BOOLEAN, offchain JSONB)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS E'
BEGIN
  RETURN QUERY
    SELECT a.id, a.doc, (EXISTS (SELECT 1 FROM das_dirty) AND das_doc_stale(a.id, a.owner_type)),
           (SELECT o.content FROM offchain_metadata o WHERE o.uri = a.json_uri AND length(a.json_uri) > 0 AND o.content IS NOT NULL)
      FROM das_assets a WHERE a.id = ANY(ids)\073
END'
