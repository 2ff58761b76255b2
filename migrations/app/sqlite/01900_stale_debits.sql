-- Stale-hold debits (the janitor charged a hold its whole reservation because
-- its call's outcome was never recorded) are listed for operators to refund:
-- a partial index holds those debits alone, so the list reads them without a
-- scan of the ledger and every other debit pays nothing for it. The predicate
-- is credits.StaleReason, which credits/sqlstore inlines in its query
-- (TestStaleDebitsIndexMatchesTheReason keeps them equal).

-- +goose Up
CREATE INDEX credit_ledger_stale_idx ON credit_ledger (id)
    WHERE kind = 'debit' AND reason = 'stale hold settled at its reservation: the call''s outcome was never recorded';

-- +goose Down
DROP INDEX credit_ledger_stale_idx;
