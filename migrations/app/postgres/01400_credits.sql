-- Hosted billing (SPEC 9, issue 12): operators (a platform role apart from
-- organisation roles), plans, organisations' plans, the prepaid credit
-- ledger (append-only, integer micro-dollars), each organisation's running
-- balance and held reservations, and the platform organisation whose sealed
-- credentials are the platform credentials (so the vault seals them under
-- its own data key and `heddle vault rotate` re-wraps that key too). Every
-- organisation-facing query is filtered by org_id. Like org_budgets, the
-- tables name organisations and users without foreign keys (the ledger is
-- kept even if an organisation row goes).

-- +goose Up
CREATE TABLE operators (
    user_id    text PRIMARY KEY,
    created_by text NOT NULL,
    created_at timestamptz NOT NULL
);

CREATE TABLE credit_plans (
    id                      text PRIMARY KEY,
    name                    text NOT NULL,
    providers               text NOT NULL DEFAULT '',
    models                  text NOT NULL DEFAULT '',
    multiplier_bp           bigint NOT NULL CHECK (multiplier_bp > 0),
    included_monthly_micros bigint NOT NULL DEFAULT 0 CHECK (included_monthly_micros >= 0),
    byok_fee_bp             bigint NOT NULL DEFAULT 0 CHECK (byok_fee_bp >= 0),
    created_at              timestamptz NOT NULL,
    updated_at              timestamptz NOT NULL,
    CONSTRAINT credit_plans_name_key UNIQUE (name)
);

CREATE TABLE org_plans (
    org_id     text PRIMARY KEY,
    plan_id    text NOT NULL,
    updated_at timestamptz NOT NULL
);

CREATE TABLE credit_accounts (
    org_id          text PRIMARY KEY,
    balance_micros  bigint NOT NULL DEFAULT 0,
    reserved_micros bigint NOT NULL DEFAULT 0 CHECK (reserved_micros >= 0),
    updated_at      timestamptz NOT NULL
);

CREATE TABLE credit_ledger (
    id            text PRIMARY KEY,
    org_id        text NOT NULL,
    kind          text NOT NULL CHECK (kind IN ('topup', 'grant', 'debit', 'refund', 'adjustment')),
    amount_micros bigint NOT NULL,
    actor         text NOT NULL,
    reason        text NOT NULL DEFAULT '',
    request_id    text NOT NULL DEFAULT '',
    model         text NOT NULL DEFAULT '',
    key_id        text NOT NULL DEFAULT '',
    reference     text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL
);
CREATE INDEX credit_ledger_org_idx ON credit_ledger (org_id, created_at, id);
CREATE UNIQUE INDEX credit_ledger_reference_key ON credit_ledger (org_id, reference) WHERE reference <> '';
CREATE UNIQUE INDEX credit_ledger_debit_key ON credit_ledger (org_id, request_id) WHERE kind = 'debit';

CREATE TABLE credit_reservations (
    id            text PRIMARY KEY,
    org_id        text NOT NULL,
    request_id    text NOT NULL,
    amount_micros bigint NOT NULL CHECK (amount_micros > 0),
    created_at    timestamptz NOT NULL
);
CREATE INDEX credit_reservations_org_idx ON credit_reservations (org_id, created_at);

INSERT INTO orgs (id, name, slug, created_at, updated_at)
VALUES ('org_platform', 'Heddle platform credentials', 'heddle-platform', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP);

-- +goose Down
DELETE FROM credentials WHERE org_id = 'org_platform';
DELETE FROM org_data_keys WHERE org_id = 'org_platform';
DELETE FROM orgs WHERE id = 'org_platform';
DROP TABLE credit_reservations;
DROP TABLE credit_ledger;
DROP TABLE credit_accounts;
DROP TABLE org_plans;
DROP TABLE credit_plans;
DROP TABLE operators;
