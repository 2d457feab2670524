-- A request_id names one request, whatever the method: a retry of a different method
-- under the same id is refused (it used to be recorded again under its own scope).
-- Older records that reused an id across methods keep only one of them; they expire
-- within a day anyway.
DELETE FROM request_ids WHERE scope <> (
    SELECT MIN(r.scope) FROM request_ids r WHERE r.request_id = request_ids.request_id
);
CREATE UNIQUE INDEX request_ids_request_id ON request_ids (request_id);
