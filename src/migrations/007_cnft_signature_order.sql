-- getSignaturesForAsset lists an asset's signatures in change-log order (newest or oldest first) and pages them by
-- keyset: this index holds exactly that order (src/store/cnft.ts SIG_KEY), so each page is one range scan,
-- forwards or backwards. A null seq (decompress, no change log) sorts as the newest.
CREATE INDEX cnft_signatures_order_idx ON cnft_signatures
  (asset_id, (COALESCE(seq, 9223372036854775807)), slot, signature COLLATE "C", ix_path COLLATE "C");
