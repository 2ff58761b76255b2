-- Organisations' bundle training jobs (issue 14): every replica reads a
-- job's status and progress here; the replica that accepted the upload runs
-- it and refreshes heartbeat_at while it is queued or running. summary is the
-- JSON routing.TrainSummary of a done job. Every query is filtered by org_id.

-- +goose Up
CREATE TABLE routing_training_jobs (
    id           text PRIMARY KEY,
    org_id       text NOT NULL,
    user_id      text NOT NULL,
    status       text NOT NULL,
    stage        text NOT NULL,
    percent      integer NOT NULL DEFAULT 0,
    samples      integer NOT NULL,
    error        text NOT NULL DEFAULT '',
    error_code   text NOT NULL DEFAULT '',
    bundle_id    text NOT NULL DEFAULT '',
    summary      text NOT NULL DEFAULT '',
    via          text NOT NULL,
    created_at   timestamptz NOT NULL,
    started_at   timestamptz,
    finished_at  timestamptz,
    heartbeat_at timestamptz NOT NULL
);
CREATE INDEX routing_training_jobs_org_idx ON routing_training_jobs (org_id, created_at);
CREATE INDEX routing_training_jobs_active_idx ON routing_training_jobs (status, heartbeat_at);

-- +goose Down
DROP TABLE routing_training_jobs;
