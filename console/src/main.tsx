// The console: a token gate, then the fleet and a group's pages. Routes are paths
// (`/`, `/groups/<group name>`, `/containerClusters/<id>`), served by the server as
// the same page.

import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import type { FlotillaClient } from "@flotilla/client/web";
import { type Grants, connect, grants, refusal, saveToken, savedToken } from "./api";
import { ContainerClusterPage } from "./container";
import { Fleet } from "./fleet";
import { Group } from "./group";
import "./style.css";

export interface Session {
  client: FlotillaClient;
  grants: Grants;
}

/** Moves to `path` without a reload. */
export function navigate(path: string): void {
  history.pushState(null, "", path);
  dispatchEvent(new PopStateEvent("popstate"));
}

function usePath(): string {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const moved = () => setPath(location.pathname);
    addEventListener("popstate", moved);
    return () => removeEventListener("popstate", moved);
  }, []);
  return path;
}

function SignIn(props: { onSession: (s: Session) => void; error?: string }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState(props.error ?? "");
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const session = await open(token.trim()).catch((err) => {
      setError(refusal(err));
      return null;
    });
    setBusy(false);
    if (session) {
      saveToken(token.trim());
      props.onSession(session);
    }
  };
  return (
    <main class="signin">
      <h1>Flotilla</h1>
      <form onSubmit={submit}>
        <label for="token">Bearer token</label>
        <p class="hint" id="token-hint">
          Paste a token (e.g. <code>flotilla-data/admin.token</code>). It is kept for this tab only.
        </p>
        <input
          id="token"
          type="password"
          autocomplete="off"
          aria-describedby="token-hint"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
          required
        />
        <button type="submit" disabled={busy || !token.trim()}>
          Sign in
        </button>
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

/** A session for `token`, once the server says whose it is. */
async function open(token: string): Promise<Session> {
  const client = connect(token);
  const current = await client.access.getCurrentToken({});
  return { client, grants: grants(current) };
}

function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(!!savedToken());
  const [error, setError] = useState<string>();
  const path = usePath();
  useEffect(() => {
    const token = savedToken();
    if (!token) return;
    open(token)
      .then(setSession)
      .catch((err) => {
        saveToken(null);
        setError(refusal(err));
      })
      .finally(() => setRestoring(false));
  }, []);
  if (restoring) return <p class="loading">Connecting…</p>;
  if (!session) return <SignIn onSession={setSession} error={error} />;
  const signOut = () => {
    saveToken(null);
    setSession(null);
  };
  const group = path.startsWith("/groups/") ? decodeURIComponent(path.slice("/groups/".length)) : null;
  const container = path.startsWith("/containerClusters/") ? path.slice(1) : null;
  return (
    <>
      <header class="top">
        <a
          href="/"
          class="brand"
          onClick={(e) => {
            e.preventDefault();
            navigate("/");
          }}
        >
          Flotilla
        </a>
        <nav aria-label="Signed in">
          <span class="who">
            {session.grants.token.name} · {roleName(session)}
          </span>
          <button type="button" onClick={signOut}>
            Sign out
          </button>
        </nav>
      </header>
      {group ? (
        <Group session={session} name={group} key={group} />
      ) : container ? (
        <ContainerClusterPage session={session} name={container} key={container} />
      ) : (
        <Fleet session={session} />
      )}
    </>
  );
}

function roleName(session: Session): string {
  return ["unspecified", "admin", "editor", "viewer", "agent"][session.grants.token.role] ?? "unknown";
}

render(<App />, document.getElementById("app")!);
