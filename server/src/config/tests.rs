//! The settings: flags over the file over defaults, and the refusals at start.

use super::*;

#[test]
fn the_console_is_on_by_default_with_the_demo_only_and_plaintext_on_loopback_only() {
    assert_eq!(Config::load(Flags::default()).unwrap().console, None);
    let demo = Flags {
        demo: true,
        ..Default::default()
    };
    assert_eq!(
        Config::load(demo.clone()).unwrap().console,
        Some(Console {
            address: DEMO_CONSOLE.parse().unwrap(),
            chosen: false
        })
    );
    let off = Flags {
        console_listen: Some("OFF".parse().unwrap()),
        ..demo.clone()
    };
    assert_eq!(Config::load(off).unwrap().console, None);
    let at = |addr: &str| Flags {
        console_listen: Some(addr.parse().unwrap()),
        ..Default::default()
    };
    let chosen = Config::load(at("127.0.0.1:0")).unwrap().console.unwrap();
    assert!(chosen.chosen);
    let error = Config::load(at("0.0.0.0:8080")).unwrap_err().to_string();
    assert!(error.contains("console in plaintext"), "{error}");
    let error = "8080".parse::<ConsoleListen>().unwrap_err();
    assert!(error.contains("neither an address"), "{error}");
    let file: FileConfig = toml::from_str("console_listen = \"off\"").unwrap();
    assert_eq!(file.console_listen, Some(ConsoleListen::Off));
    assert!(toml::from_str::<FileConfig>("console_listen = \"nowhere\"").is_err());
}

#[test]
fn plaintext_beyond_loopback_needs_insecure_and_tls_files_go_together() {
    let listen = |addr: &str| Flags {
        listen: Some(addr.parse().unwrap()),
        ..Default::default()
    };
    let error = Config::load(listen("0.0.0.0:50051"))
        .unwrap_err()
        .to_string();
    assert!(error.contains("refusing to serve plaintext"), "{error}");
    assert!(Config::load(listen("[::1]:50051")).is_ok());
    let insecure = Flags {
        insecure: true,
        ..listen("0.0.0.0:50051")
    };
    assert!(Config::load(insecure).is_ok());
    let with_tls = Flags {
        tls_cert: Some("c.pem".into()),
        tls_key: Some("k.pem".into()),
        ..listen("0.0.0.0:50051")
    };
    assert!(Config::load(with_tls.clone()).unwrap().tls.is_some());
    let half = Flags {
        tls_key: None,
        ..with_tls
    };
    assert!(Config::load(half).is_err());
    let ca_only = Flags {
        tls_client_ca: Some("ca.pem".into()),
        ..Default::default()
    };
    assert!(Config::load(ca_only).is_err());
    // The demo turns the sim backends on; they are off by default.
    assert!(!Config::load(Flags::default()).unwrap().sim);
    let demo = Flags {
        demo: true,
        ..Default::default()
    };
    assert!(Config::load(demo).unwrap().sim);
}

#[test]
fn etcd_coordination_is_complete_or_refused() {
    let postgres = || Some(DatabaseUrl("postgres://u@db/flotilla".into()));
    let etcd = |endpoints: &[&str]| Flags {
        coordination: Some(Mode::Etcd),
        etcd_endpoints: endpoints.iter().map(|e| e.to_string()).collect(),
        database_url: postgres(),
        ..Default::default()
    };
    let config = Config::load(etcd(&["http://e1:2379", " http://e2:2379 "])).unwrap();
    let settings = config.coordination.etcd.unwrap();
    assert_eq!(settings.endpoints, ["http://e1:2379", "http://e2:2379"]);
    assert_eq!(settings.prefix, "/flotilla");
    assert_eq!(settings.lease_ttl, Duration::from_secs(10));
    assert!(settings.tls.is_none());
    // The default is one process, with no etcd settings at all.
    assert!(
        Config::load(Flags::default())
            .unwrap()
            .coordination
            .etcd
            .is_none()
    );

    let error = |flags: Flags| Config::load(flags).unwrap_err().to_string();
    let sqlite = Flags {
        database_url: None,
        ..etcd(&["http://e1:2379"])
    };
    assert!(error(sqlite).contains("needs PostgreSQL"));
    assert!(error(etcd(&[])).contains("needs --etcd-endpoints"));
    assert!(error(etcd(&["e1:2379"])).contains("http:// or https://"));
    let half_identity = Flags {
        etcd_cert_file: Some("c.pem".into()),
        ..etcd(&["https://e1:2379"])
    };
    assert!(error(half_identity).contains("go together"));
    let plain_with_tls = Flags {
        etcd_ca_file: Some("ca.pem".into()),
        ..etcd(&["http://e1:2379"])
    };
    assert!(error(plain_with_tls).contains("https://"));
    let stray = Flags {
        lease_ttl_secs: Some(5),
        ..Default::default()
    };
    assert!(error(stray).contains("only with --coordination etcd"));
    let wildcard = Flags {
        listen: Some("0.0.0.0:50051".parse().unwrap()),
        insecure: true,
        ..etcd(&["http://e1:2379"])
    };
    assert!(error(wildcard.clone()).contains("--advertise-address"));
    let advertised = Flags {
        advertise_address: Some("http://flotilla-0.flotilla:50051".into()),
        ..wildcard
    };
    assert!(Config::load(advertised).is_ok());
    let bad_id = Flags {
        replica_id: Some("two words".into()),
        ..etcd(&["http://e1:2379"])
    };
    assert!(error(bad_id).contains("--replica-id"));

    // TLS, a prefix spelled with slashes, a TTL below etcd's minimum: all from the
    // file, under the flags.
    let dir = std::env::temp_dir().join(format!("flotilla-coord-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("flotilla.toml");
    std::fs::write(
        &file,
        "coordination = \"etcd\"\netcd_endpoints = [\"https://e1:2379\"]\n\
         etcd_prefix = \"/fleet/a/\"\nlease_ttl_secs = 1\netcd_ca_file = \"ca.pem\"\n\
         etcd_cert_file = \"c.pem\"\netcd_key_file = \"k.pem\"\n\
         peer_ca_file = \"peers.pem\"\n\
         database_url = \"postgres://u@db/f\"\nreplica_id = \"flotilla-0\"\n",
    )
    .unwrap();
    let config = Config::load(Flags {
        config: Some(file.clone()),
        replica_id: Some("flotilla-1".into()),
        ..Default::default()
    })
    .unwrap();
    let coordination = config.coordination;
    assert_eq!(coordination.replica_id.as_deref(), Some("flotilla-1"));
    let settings = coordination.etcd.unwrap();
    assert_eq!(settings.prefix, "/fleet/a");
    assert_eq!(settings.lease_ttl, Duration::from_secs(2));
    let tls = settings.tls.unwrap();
    assert_eq!(tls.ca, Some(PathBuf::from("ca.pem")));
    assert_eq!(tls.identity, Some(("c.pem".into(), "k.pem".into())));
    assert_eq!(settings.peer_ca, Some(PathBuf::from("peers.pem")));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn flags_override_file_which_overrides_defaults() {
    let dir = std::env::temp_dir().join(format!("flotilla-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("flotilla.toml");
    std::fs::write(
        &file,
        "listen = \"127.0.0.1:6000\"\ndata_dir = \"/tmp/x\"\n",
    )
    .unwrap();
    let flags = Flags {
        listen: Some("127.0.0.1:7000".parse().unwrap()),
        config: Some(file.clone()),
        ..Default::default()
    };
    let config = Config::load(flags).unwrap();
    assert_eq!(config.listen.port(), 7000);
    assert_eq!(config.data_dir, PathBuf::from("/tmp/x"));
    assert_eq!(config.shutdown_timeout, Duration::from_secs(10));
    assert!(
        config
            .database_url()
            .starts_with("sqlite:///tmp/x/flotilla.db")
    );
    // The password of a database URL never shows in Debug output.
    let flags = Flags {
        database_url: Some("postgres://flotilla:s3cret@db/flotilla".parse().unwrap()),
        ..Default::default()
    };
    let config = Config::load(flags.clone()).unwrap();
    for debug in [format!("{flags:?}"), format!("{config:?}")] {
        assert!(!debug.contains("s3cret"), "{debug}");
        assert!(
            debug.contains("postgres://flotilla:***@db/flotilla"),
            "{debug}"
        );
    }
    assert!(config.database_url().contains("s3cret"));
    // A file value is held to the range its flag is: 0 in flight would stop every
    // rollout, and is refused rather than quietly made 1.
    for (text, accepted) in [
        ("rsync_in_flight = 0\n", false),
        ("rsync_in_flight = 10000001\n", false),
        ("rsync_in_flight = 7\n", true),
    ] {
        std::fs::write(&file, text).unwrap();
        let flags = Flags {
            config: Some(file.clone()),
            ..Default::default()
        };
        match Config::load(flags) {
            Ok(config) => {
                assert!(accepted, "{text}");
                assert_eq!(config.rsync_in_flight, 7);
            }
            Err(error) => {
                assert!(!accepted, "{text}: {error}");
                assert!(
                    error.to_string().contains("rsync_in_flight")
                        && error.to_string().contains("1 to 10000000"),
                    "{error}"
                );
            }
        }
    }
    std::fs::write(&file, "bogus = 1\n").unwrap();
    let flags = Flags {
        config: Some(file),
        ..Default::default()
    };
    assert!(Config::load(flags).is_err());
}
