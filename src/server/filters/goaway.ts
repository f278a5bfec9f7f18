// --goaway-chance: HTTP/2 clients keep one connection to one server for as long as they can, so
// behind a load balancer the servers that started first keep the most clients. With this chance
// per request the connection is sent a GOAWAY (as kube-apiserver's probabilistic GOAWAY filter
// does through `Connection: close`): the request itself and the others in flight on it finish,
// and the client's next request opens a new connection, which the load balancer may send
// elsewhere. HTTP/1.1 requests are left alone.
import type { Filter } from "./filter.js";

export function goawayFilter(chance: number, random: () => number = Math.random): Filter {
  return (ctx, next) => {
    if (ctx.ex.httpVersion === "2" && random() < chance) ctx.ex.closeConnection();
    return next(ctx);
  };
}
