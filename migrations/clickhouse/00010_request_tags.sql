-- Request tags (the key's and the x-heddle-tags header's, comma-joined and
-- sorted), the baseline model savings were priced against, and the router's
-- candidate scores (issue 13). 18.16 has no ADD COLUMN IF NOT EXISTS: the
-- runner treats "column already exists" on ADD COLUMN as applied.
ALTER TABLE requests ADD COLUMN tags String DEFAULT '';
ALTER TABLE requests ADD COLUMN baseline_model String DEFAULT '';
ALTER TABLE requests ADD COLUMN candidates String DEFAULT ''
