// The union of authentication methods, as kube-apiserver assembles it (request header first, then
// client certificates, then the bearer-token methods in the order start-up lists them):
// - each method in order; the first that authenticates decides, even after an earlier method
//   refused a credential it recognised;
// - none authenticated: the errors of the methods that recognised a credential → 401 (a bearer
//   token nobody recognised is "invalid bearer token"); anonymous is asked only when no method
//   errored and no bearer token was sent, so a bad credential never falls back to anonymous;
// - system:authenticated is added, once, to every user that is not already in it or in
//   system:unauthenticated (upstream's AuthenticatedGroupAdder); anonymous gets nothing added;
// - with --api-audiences, requests are audience-bound to them (upstream's filter), and an answer
//   whose audiences miss them all is a 401.
import { bearerToken, type Authenticator, type AuthnRequest, type AuthnResult } from "./authenticator.js";
import { authenticatedGroup, unauthenticatedGroup, type UserInfo } from "../apimachinery/user.js";

/** `unrecognised`: no method recognised a credential and anonymous is off (not a refusal: upstream's !ok without error). */
export type AuthnOutcome = { user: UserInfo; audiences?: string[]; warnings?: string[] } | { error: string; unrecognised?: true };

export interface UnionOptions {
  /** --api-audiences: the audiences a request's credential is checked for when it names none. */
  apiAudiences?: readonly string[];
}

/**
 * The users with system:authenticated added, by the user a method handed over again and again
 * (a connection's certificate): one user per connection, not one per request. Users are never
 * changed once authenticated (impersonation makes a new one).
 */
const authenticatedUsers = new WeakMap<UserInfo, UserInfo>();

/** The outcome of an answer a method gives again and again, by that answer (never changed once made). */
const reusedOutcomes = new WeakMap<object, AuthnOutcome>();

function withAuthenticated(u: UserInfo, reused: boolean): UserInfo {
  if (u.groups.includes(authenticatedGroup) || u.groups.includes(unauthenticatedGroup)) return u;
  if (!reused) return { ...u, groups: [...u.groups, authenticatedGroup] };
  let added = authenticatedUsers.get(u);
  if (added === undefined) authenticatedUsers.set(u, (added = { ...u, groups: [...u.groups, authenticatedGroup] }));
  return added;
}

/** Go's utilerrors aggregate text: one error as is, several in brackets. */
const aggregate = (errors: string[]) => (errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`);

export function unionAuthenticator(authenticators: Authenticator[], anonymous?: Authenticator, options: UnionOptions = {}) {
  const apiAudiences = options.apiAudiences ?? [];
  // Synchronous while every method asked answers at once (client certificates, cached tokens): a
  // request is authenticated without a promise, a microtask turn or a closure per method.
  return function authenticate(request: AuthnRequest): AuthnOutcome | Promise<AuthnOutcome> {
    const req = request.audiences === undefined && apiAudiences.length > 0 ? { ...request, audiences: [...apiAudiences] } : request;
    const asking: Asking = { authenticators, anonymous, apiAudiences, request, req, errors: undefined };
    try {
      return askFrom(asking, 0);
    } catch (e) {
      return Promise.reject(e);
    }
  };
}

/** One request's pass through the methods. */
interface Asking {
  readonly authenticators: readonly Authenticator[];
  readonly anonymous: Authenticator | undefined;
  readonly apiAudiences: readonly string[];
  /** As the caller made it, and as the methods see it (with --api-audiences). */
  readonly request: AuthnRequest;
  readonly req: AuthnRequest;
  /** The refusals so far (made at the first). */
  errors: string[] | undefined;
}

const failed = (e: unknown): AuthnResult => ({ error: (e as Error)?.message ?? String(e) });

function askFrom(s: Asking, first: number): AuthnOutcome | Promise<AuthnOutcome> {
  for (let i = first; i < s.authenticators.length; i++) {
    let answer: AuthnResult | Promise<AuthnResult>;
    try {
      answer = s.authenticators[i]!.authenticate(s.req);
    } catch (e) {
      answer = failed(e);
    }
    if (answer instanceof Promise) return answer.then((r) => r, failed).then((r) => outcomeOf(s, r) ?? askFrom(s, i + 1));
    const outcome = outcomeOf(s, answer);
    if (outcome) return outcome;
  }
  return noneAuthenticated(s);
}

/** The outcome when this answer authenticated someone; a refusal is kept for the end. */
function outcomeOf(s: Asking, r: AuthnResult): AuthnOutcome | undefined {
  if (!r) return undefined;
  if ("user" in r) {
    const { apiAudiences } = s;
    if (s.request.audiences === undefined && apiAudiences.length > 0 && r.audiences && r.audiences.length > 0 && !r.audiences.some((x) => apiAudiences.includes(x))) {
      return { error: "unable to match the audience" };
    }
    // A method's answer given again (a connection's certificate) has its outcome made once too.
    const plain = r.reused === true && !r.audiences && !r.warnings?.length;
    if (plain) {
      const made = reusedOutcomes.get(r);
      if (made) return made;
    }
    const outcome: AuthnOutcome = { user: withAuthenticated(r.user, r.reused === true) };
    if (plain) reusedOutcomes.set(r, outcome);
    if (r.audiences) outcome.audiences = r.audiences;
    if (r.warnings?.length) outcome.warnings = r.warnings;
    return outcome;
  }
  (s.errors ??= []).push(r.error);
  return undefined;
}

function noneAuthenticated(s: Asking): AuthnOutcome | Promise<AuthnOutcome> {
  if (s.errors) return { error: aggregate(s.errors) };
  if (bearerToken(s.req) !== undefined) return { error: "invalid bearer token" };
  if (s.anonymous) {
    const answer = s.anonymous.authenticate(s.req);
    return answer instanceof Promise ? answer.then(anonymousOutcome) : anonymousOutcome(answer);
  }
  return { error: "Unauthorized", unrecognised: true };
}

function anonymousOutcome(r: AuthnResult): AuthnOutcome {
  return r && "user" in r ? { user: r.user } : { error: "Unauthorized", unrecognised: true };
}
