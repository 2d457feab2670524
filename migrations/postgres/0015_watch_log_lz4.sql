-- lz4 for the event log's JSON (faster than pglz at about the same ratio), where this
-- server can: PostgreSQL 14 or later, built with lz4. Elsewhere the column keeps the
-- default compression and everything else works the same.
DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 140000 THEN
        BEGIN
            EXECUTE 'ALTER TABLE watch_log ALTER COLUMN events SET COMPRESSION lz4';
        EXCEPTION WHEN OTHERS THEN
            RAISE NOTICE 'lz4 is not available (%); watch_log.events keeps pglz', SQLERRM;
        END;
    ELSE
        RAISE NOTICE 'PostgreSQL < 14 has no lz4 column compression; watch_log.events keeps pglz';
    END IF;
END
$$;
