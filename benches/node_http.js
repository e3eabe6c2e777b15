// node.js `http` server answering every request with the same 12-byte body.
// Usage: node node_http.js PORT
const http = require('http');
const BODY = Buffer.from('Hello World\n');
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': 12 });
  res.end(BODY);
});
server.keepAliveTimeout = 60000;
server.listen(+process.argv[2], '127.0.0.1');
