-- A version's stored content may be zstd, as SQLite's migration
-- zstd_content: its parts are zstd frames. Versions stored as gzip or
-- identity stay as they are.
ALTER TABLE datasets DROP CONSTRAINT datasets_content_encoding_check;
ALTER TABLE datasets ADD CONSTRAINT datasets_content_encoding_check
    CHECK (content_encoding IN ('identity', 'gzip', 'zstd'));
