//! Prints the name builders of a client, generated from the kind declarations:
//! `flotilla-gen-names python` (client/python/flotilla/names.py) or
//! `flotilla-gen-names typescript` (client/typescript/src/names.ts).

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("python") => print!("{}", flotilla_api::PYTHON_NAMES),
        Some("typescript") => print!("{}", flotilla_api::TYPESCRIPT_NAMES),
        _ => {
            eprintln!("usage: flotilla-gen-names python|typescript");
            std::process::exit(2);
        }
    }
}
