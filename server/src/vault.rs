//! Secrets at rest: container cluster credentials are sealed with AES-256-GCM under a
//! key that lives outside the database (a file, mode 0600; the embedded default makes
//! one in the data dir on first start). Each sealed value is bound to what it belongs
//! to (the AAD, e.g. the cluster's name), so a value copied to another row does not
//! open. The database keeps a check value sealed under the key: a server given another
//! key, or none while the database holds sealed values, refuses to start with a clear
//! message instead of ever returning garbage.

use std::fmt;
use std::io::Write;
use std::path::Path;

use aes_gcm::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use aes_gcm::{Aes256Gcm, Key, Nonce};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;

use crate::error::{Error, Result};
use crate::store::Store;

/// What the check value seals, under the AAD `CHECK_CONTEXT`.
const CHECK_PLAINTEXT: &[u8] = b"flotilla credentials key check";
const CHECK_CONTEXT: &str = "vault-check";
const NONCE_BYTES: usize = 12;

/// The sealing key, in memory only.
#[derive(Clone)]
pub struct Vault {
    cipher: Aes256Gcm,
}

impl fmt::Debug for Vault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Vault(<key>)")
    }
}

impl Vault {
    /// A vault with `key` (32 bytes).
    pub fn with_key(key: &[u8; 32]) -> Vault {
        Vault {
            cipher: Aes256Gcm::new(Key::<Aes256Gcm>::from_slice(key)),
        }
    }

    /// The key from `key_file` (64 hex digits), checked against the database's check
    /// value. A missing file is created (mode 0600) only while the database holds no
    /// check value: a database with sealed values needs the key they were sealed with.
    pub async fn open(store: &Store, key_file: &Path) -> anyhow::Result<Vault> {
        let check = crate::store::vault_check::check_get(store).await?;
        let vault = match std::fs::read_to_string(key_file) {
            Ok(text) => Vault::with_key(&parse_key(&text).map_err(|why| {
                anyhow::anyhow!("the credentials key file {} {why}", key_file.display())
            })?),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                if check.is_some() {
                    anyhow::bail!(
                        "the credentials key file {} is missing, and the database holds \
                         credentials sealed with a key: restore the file (or point \
                         --credentials-key-file at it)",
                        key_file.display()
                    );
                }
                create_key_file(key_file)?
            }
            Err(error) => anyhow::bail!(
                "cannot read the credentials key file {}: {error}",
                key_file.display()
            ),
        };
        match check {
            Some(sealed) => {
                let opened = vault.unseal(CHECK_CONTEXT, &sealed);
                if !opened.is_ok_and(|text| text == CHECK_PLAINTEXT) {
                    anyhow::bail!(
                        "the credentials key in {} is not the key this database's \
                         credentials were sealed with",
                        key_file.display()
                    );
                }
            }
            None => {
                let sealed = vault.seal(CHECK_CONTEXT, CHECK_PLAINTEXT);
                crate::store::vault_check::check_put(store, &sealed).await?;
            }
        }
        Ok(vault)
    }

    /// `plaintext` sealed for `context`: base64 of a fresh nonce and the ciphertext.
    pub fn seal(&self, context: &str, plaintext: &[u8]) -> String {
        let nonce = Aes256Gcm::generate_nonce(&mut OsRng);
        let sealed = self
            .cipher
            .encrypt(
                &nonce,
                Payload {
                    msg: plaintext,
                    aad: context.as_bytes(),
                },
            )
            .expect("AES-GCM seals any message under 64 GiB");
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        STANDARD.encode(out)
    }

    /// What `seal(context, …)` sealed; INTERNAL (never the bytes) for anything else.
    pub fn unseal(&self, context: &str, sealed: &str) -> Result<Vec<u8>> {
        let refused = || Error::internal("a sealed credential does not open with this key");
        let bytes = STANDARD.decode(sealed).map_err(|_| refused())?;
        if bytes.len() < NONCE_BYTES {
            return Err(refused());
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_BYTES);
        self.cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: context.as_bytes(),
                },
            )
            .map_err(|_| refused())
    }
}

fn parse_key(text: &str) -> std::result::Result<[u8; 32], &'static str> {
    let bytes = hex::decode(text.trim()).map_err(|_| "does not hold 64 hex digits")?;
    bytes.try_into().map_err(|_| "does not hold 64 hex digits")
}

/// A new random key, written to `path` with mode 0600 (never over an existing file).
fn create_key_file(path: &Path) -> anyhow::Result<Vault> {
    let key: [u8; 32] = Aes256Gcm::generate_key(&mut OsRng).into();
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| {
        anyhow::anyhow!(
            "cannot create the credentials key file {}: {e}",
            path.display()
        )
    })?;
    file.write_all(format!("{}\n", hex::encode(key)).as_bytes())?;
    file.sync_all()?;
    tracing::info!(file = %path.display(), "created the credentials key (keep it with the database's backups)");
    Ok(Vault::with_key(&key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_values_open_only_for_their_context_and_key() {
        let vault = Vault::with_key(&[7; 32]);
        let sealed = vault.seal("containerClusters/a", b"hunter2");
        assert!(!sealed.contains("hunter2"));
        assert_eq!(
            vault.unseal("containerClusters/a", &sealed).unwrap(),
            b"hunter2"
        );
        // Two seals of one value differ (fresh nonces).
        assert_ne!(sealed, vault.seal("containerClusters/a", b"hunter2"));
        // Another row, another key, a flipped bit, garbage: refused, never garbage back.
        assert!(vault.unseal("containerClusters/b", &sealed).is_err());
        assert!(
            Vault::with_key(&[8; 32])
                .unseal("containerClusters/a", &sealed)
                .is_err()
        );
        let mut bytes = STANDARD.decode(&sealed).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        assert!(
            vault
                .unseal("containerClusters/a", &STANDARD.encode(bytes))
                .is_err()
        );
        assert!(vault.unseal("containerClusters/a", "not base64!").is_err());
        assert!(vault.unseal("containerClusters/a", "AAAA").is_err());
        assert_eq!(format!("{vault:?}"), "Vault(<key>)");
    }

    #[test]
    fn key_files_hold_64_hex_digits() {
        assert!(parse_key(&"ab".repeat(32)).is_ok());
        assert!(parse_key(&format!("{}\n", "ab".repeat(32))).is_ok());
        assert!(parse_key("abcd").is_err());
        assert!(parse_key(&"zz".repeat(32)).is_err());
    }
}
