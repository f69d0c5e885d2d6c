import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { revoke } from '../session/lifecycle.ts';
import { session } from '../session/session.ts';
import { ErrorNotice } from '../ui/ErrorNotice.tsx';
import { Field } from '../ui/Field.tsx';
import { Modal } from '../ui/Modal.tsx';
import { type LinkToConfirm, useApiKeySignIn, useLinkSignIn } from './useSignIn.ts';

/** The code of a sign-in link, from the address's fragment (`#code=…`), which no server ever sees. */
function takeCodeFromAddress(): string | undefined {
  const code = new URLSearchParams(window.location.hash.slice(1)).get('code') ?? undefined;
  // Out of the address at once: not in the history, not in a bookmark, not on the screen.
  if (code !== undefined) window.history.replaceState(null, '', window.location.pathname);
  return code;
}

export function SignInView() {
  const navigate = useNavigate();
  const [apiKey, setApiKey] = useState('');
  const [keyError, setKeyError] = useState<string | undefined>();
  const byKey = useApiKeySignIn();
  const byLink = useLinkSignIn();
  const queryClient = useQueryClient();
  const [toConfirm, setToConfirm] = useState<LinkToConfirm | undefined>();
  const started = useRef(false);
  useEffect(() => {
    const signInWithLink = () => {
      const code = takeCodeFromAddress();
      if (code)
        byLink.mutateAsync(code).then(
          (ask) => (ask ? setToConfirm(ask) : navigate({ to: '/' })),
          () => {},
        );
    };
    // At once (only once, even under StrictMode's double effects: a link signs in only once), and when a link is
    // opened in a tab already on this page (only the fragment changes: no new page load).
    if (!started.current) {
      started.current = true;
      signInWithLink();
    }
    window.addEventListener('hashchange', signInWithLink);
    return () => window.removeEventListener('hashchange', signInWithLink);
  }, [byLink.mutateAsync, navigate]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!/^mtn_(test|live)_[0-9A-Za-z]{44}$/.test(apiKey.trim())) {
      setKeyError('A project API key starts with mtn_test_ or mtn_live_ followed by 44 letters and digits');
      return;
    }
    setKeyError(undefined);
    await byKey.mutateAsync(apiKey);
    // Signed in: the key is exchanged for a token, and forgotten here too.
    setApiKey('');
    byKey.reset();
    await navigate({ to: '/' });
  };
  const switchSession = () => {
    if (!toConfirm) return;
    const previous = session.get();
    // Nothing read with the other session's credentials is shown with these.
    queryClient.clear();
    session.signIn(toConfirm.credentials);
    setToConfirm(undefined);
    // The session this tab leaves ends for good: its token is revoked, not only forgotten.
    if (previous) revoke(previous).catch(() => {});
    navigate({ to: '/' }).catch(() => {});
  };
  const keepSession = async () => {
    const declined = toConfirm;
    setToConfirm(undefined);
    // The link was exchanged already: the token it gave, unused, is revoked rather than left valid.
    if (declined) await revoke(declined.credentials);
    await navigate({ to: '/' });
  };
  return (
    <main className="signin">
      <h1>Sign in to the Mountain console</h1>
      <Modal
        title={`Sign in as ${toConfirm?.linkAs ?? ''}?`}
        isOpen={toConfirm !== undefined}
        onClose={() => keepSession().catch(() => {})}
      >
        <p>
          You are signed in as {toConfirm?.signedInAs}. Signing in with this link ends that session in this tab. If you
          did not ask for this link, cancel.
        </p>
        <div className="row">
          <button type="button" className="primary" onClick={switchSession}>
            Sign in
          </button>
          <button type="button" onClick={() => keepSession().catch(() => {})}>
            Cancel
          </button>
        </div>
      </Modal>
      {byLink.isPending && (
        <p aria-live="polite" className="notice">
          Signing you in with your link…
        </p>
      )}
      {byLink.isError && <ErrorNotice title="This sign-in link cannot be used." error={byLink.error} />}
      <form onSubmit={(event) => submit(event).catch(() => {})} noValidate className="card">
        <Field
          label="Project API key"
          hint="Exchanged for a session of this tab (renewed while you use it, 12 hours at most); the key itself is not kept."
          error={keyError ?? (byKey.isError ? byKey.error.message : undefined)}
        >
          <input
            type="password"
            value={apiKey}
            onChange={(event) => setApiKey(event.target.value)}
            autoComplete="off"
            spellCheck={false}
          />
        </Field>
        <button type="submit" className="primary" disabled={byKey.isPending}>
          Sign in
        </button>
      </form>
      <p className="muted">
        Or sign in as a user with a one-time link: <code>mountain-admin console-link --user you@example.com</code>.
      </p>
    </main>
  );
}
