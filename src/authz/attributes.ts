// The authorization attributes of a request, as upstream's GetAuthorizerAttributes builds them
// from the request info: with AuthorizeWithSelectors the raw field and label selectors of
// list/watch/deletecollection are parsed here (requirements, or the parse error); a selector with
// no requirements is left out.
import { parseFieldSelector } from "../apimachinery/fields.js";
import { parseLabelSelector } from "../apimachinery/labels.js";
import type { UserInfo } from "../authn/user.js";
import type { RequestInfo } from "../http/request-info.js";
import type { Attributes } from "./authorizer.js";

export function attributesFor(user: UserInfo, info: RequestInfo): Attributes {
  const a: Attributes = {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
  if (info.fieldSelector) {
    try {
      const requirements = parseFieldSelector(info.fieldSelector).requirements();
      if (requirements.length > 0) a.fieldSelector = { raw: info.fieldSelector, requirements };
    } catch (e) {
      a.fieldSelector = { raw: info.fieldSelector, error: (e as Error).message };
    }
  }
  if (info.labelSelector) {
    try {
      const requirements = parseLabelSelector(info.labelSelector).requirements();
      if (requirements.length > 0) a.labelSelector = { raw: info.labelSelector, requirements };
    } catch (e) {
      a.labelSelector = { raw: info.labelSelector, error: (e as Error).message };
    }
  }
  return a;
}
