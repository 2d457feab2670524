//! Reads that move many values in one: a JSON array bound as the list of an `IN`, and
//! rows that come back as one JSON array. Through sqlx's Any driver every row and every
//! distinct statement text has a cost of its own; these keep both to one.

use sqlx::{AnyConnection, Row};

use super::Backend;
use crate::error::{Error, Result};

/// `column` is one of the strings of the JSON array bound at `$n`: one bind, and one
/// statement for any number of values. (A list of n placeholders is a new statement
/// for each n, which sqlx prepares again and which pushes the prepared statements in
/// use out of its cache, 100 a connection.) Both forms seek an index on `column`:
/// SQLite through the values it gathers for `IN`, PostgreSQL through `= ANY` of an
/// array (an `IN (SELECT …)` would be a semi-join, reading every row of the prefix).
pub(crate) fn json_in(conn: &AnyConnection, column: &str, n: usize) -> String {
    if Backend::of(conn) == Backend::Postgres {
        format!("{column} = ANY(ARRAY(SELECT jsonb_array_elements_text(${n}::jsonb)))")
    } else {
        format!("{column} IN (SELECT value FROM json_each(${n}))")
    }
}

/// A subquery of the rows of the JSON array of arrays bound at `$n`, with `columns`
/// as its column names (all text): many rows moved in one bind, by a statement whose
/// text is the same for any number of them (see [`json_in`] for why that matters).
pub(crate) fn json_table(conn: &AnyConnection, n: usize, columns: &[&str]) -> String {
    let postgres = Backend::of(conn) == Backend::Postgres;
    let fields: Vec<String> = columns
        .iter()
        .enumerate()
        .map(|(i, column)| {
            if postgres {
                format!("x->>{i} AS {column}")
            } else {
                format!("json_extract(value, '$[{i}]') AS {column}")
            }
        })
        .collect();
    if postgres {
        format!(
            "(SELECT {} FROM jsonb_array_elements(${n}::jsonb) x)",
            fields.join(", ")
        )
    } else {
        format!("(SELECT {} FROM json_each(${n}))", fields.join(", "))
    }
}

/// Rows per statement of [`execute_for_rows`] (one JSON bind each).
const JSON_ROWS: usize = 1000;

/// Runs `sql`, whose `$1` is a [`json_table`], for `rows` (each a JSON array), in
/// order, a thousand rows a statement.
pub(crate) async fn execute_for_rows<T: serde::Serialize>(
    conn: &mut AnyConnection,
    sql: &str,
    rows: &[T],
) -> Result<()> {
    for chunk in rows.chunks(JSON_ROWS) {
        sqlx::query(sql)
            .bind(serde_json::to_string(chunk).map_err(Error::internal)?)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Runs `select` (bind values in `binds`) and returns its rows as one JSON array of
/// arrays of `fields`, decoded as `T`: one row to transfer instead of one per resource,
/// which is what wide reads cost through sqlx's Any rows (~18 µs a row). The rows come
/// in `order`: PostgreSQL orders the aggregate; SQLite would sort it a second time
/// through a temporary b-tree, so `cmp` puts them in order here (byte order, which is
/// SQLite's BINARY collation).
pub(crate) async fn json_rows<T: serde::de::DeserializeOwned>(
    conn: &mut AnyConnection,
    select: &str,
    fields: &str,
    order: &str,
    binds: Vec<String>,
    cmp: impl FnMut(&T, &T) -> std::cmp::Ordering,
) -> Result<Vec<T>> {
    let postgres = Backend::of(conn) == Backend::Postgres;
    let sql = if postgres {
        format!(
            "SELECT COALESCE(json_agg(json_build_array({fields}) ORDER BY {order}), '[]')::text \
             AS page FROM ({select}) page"
        )
    } else {
        format!("SELECT json_group_array(json_array({fields})) AS page FROM ({select}) page")
    };
    let mut query = sqlx::query(&sql);
    for bind in binds {
        query = query.bind(bind);
    }
    let row = query.fetch_one(&mut *conn).await?;
    let page: String = row.try_get("page")?;
    let mut rows: Vec<T> = serde_json::from_str(&page).map_err(Error::internal)?;
    if !postgres {
        rows.sort_by(cmp);
    }
    Ok(rows)
}
