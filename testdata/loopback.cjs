// Test preload (node --require): keeps every TCP server of this Node process
// on the loopback interface, whatever host or none the program asks for, and
// announces each bound address on stderr as
//     loopback-listening 127.0.0.1:<port>
// so a test can start a server on port 0 and learn its port without racing
// another process for a "free" one.
'use strict';

const net = require('node:net');
const dns = require('node:dns');

const LOOPBACK = '127.0.0.1';

// Node resolves a listen host through dns.lookup, asynchronously even for an
// address literal; answering the literal at once keeps server.address()
// usable right after listen(), as it is for a listen without a host.
const realLookup = dns.lookup;
dns.lookup = function lookup(hostname, options, callback) {
  if (hostname !== LOOPBACK) {
    return realLookup.apply(this, arguments);
  }
  const done = typeof options === 'function' ? options : callback;
  const wantAll = options !== null && typeof options === 'object' && options.all;
  if (wantAll) {
    done(null, [{ address: LOOPBACK, family: 4 }]);
  } else {
    done(null, LOOPBACK, 4);
  }
};

function looksLikePort(v) {
  return typeof v === 'number' || (typeof v === 'string' && /^[0-9]+$/.test(v));
}

const realListen = net.Server.prototype.listen;
net.Server.prototype.listen = function listen(...args) {
  const first = args[0];
  if (first !== null && typeof first === 'object' && !Array.isArray(first)) {
    // listen({port, host, ...}); leave pipes, fds and handles alone.
    const isTCP = first.path === undefined && first.fd === undefined &&
      first.handle === undefined && first._handle === undefined && !(first instanceof net.Server);
    if (isTCP) {
      args[0] = Object.assign({}, first, { host: LOOPBACK });
    }
  } else if (first === undefined || typeof first === 'function' || looksLikePort(first)) {
    // listen([port][, host][, backlog][, callback])
    const rest = looksLikePort(first) ? args.slice(1) : args.slice(first === undefined ? 1 : 0);
    if (typeof rest[0] === 'string') {
      rest.shift(); // the host the program asked for
    }
    args = [looksLikePort(first) ? Number(first) : 0, LOOPBACK, ...rest];
  }
  this.once('listening', () => {
    const addr = this.address();
    if (addr !== null && typeof addr === 'object') {
      process.stderr.write(`loopback-listening ${addr.address}:${addr.port}\n`);
    }
  });
  return realListen.apply(this, args);
};
