//! Prints the name builders of a client, generated from the kind declarations:
//! `flotilla-gen-names python` (client/python/flotilla/names.py) or
//! `flotilla-gen-names typescript` (client/typescript/src/names.ts) or
//! `flotilla-gen-names go` (client/go/names/names.go).

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("python") => print!("{}", flotilla_api::PYTHON_NAMES),
        Some("typescript") => print!("{}", flotilla_api::TYPESCRIPT_NAMES),
        Some("go") => print!("{}", flotilla_api::GO_NAMES),
        _ => {
            eprintln!("usage: flotilla-gen-names python|typescript|go");
            std::process::exit(2);
        }
    }
}
