// `sqlx::migrate!` embeds migrations/ at compile time, but cargo does not know the
// crate reads that directory: without this, a new migration file is not picked up
// until something else in the crate changes.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
