"""Builds the projection benchmark inputs from GitHub's OpenAPI descriptions.

Usage: build.py NODE_MODULES OUT_DIR (build.sh installs the packages and calls this).

Component references `#/components/schemas/X` become `#/$defs/X`, and each tool carries the
definitions reachable from it, so every tool is a self-contained JSON Schema as an MCP server
would send it.
"""
import collections
import json
import os
import re
import sys

COMPONENTS = '#/components/schemas/'


def rewrite(node):
    """The node with component references pointed at `$defs`."""
    if isinstance(node, dict):
        return {
            k: ('#/$defs/' + v[len(COMPONENTS):]
                if k == '$ref' and isinstance(v, str) and v.startswith(COMPONENTS)
                else rewrite(v))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [rewrite(x) for x in node]
    return node


def referenced(node, names):
    """Adds the component names `node` refers to directly."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == '$ref' and isinstance(v, str) and v.startswith(COMPONENTS):
                names.add(v[len(COMPONENTS):])
            else:
                referenced(v, names)
    elif isinstance(node, list):
        for x in node:
            referenced(x, names)


def reachable(roots, components):
    """Component names reachable from `roots`, breadth first, in a stable order."""
    order, seen, todo = [], set(), collections.deque(sorted(roots))
    while todo:
        name = todo.popleft()
        if name in seen:
            continue
        seen.add(name)
        order.append(name)
        names = set()
        referenced(components[name], names)
        todo.extend(sorted(names - seen))
    return order


def with_defs(schema, roots, components):
    if roots:
        schema['$defs'] = {n: rewrite(components[n]) for n in reachable(roots, components)}
    return schema


def webhook_tools(spec):
    """One tool per webhook event: a oneOf of its payloads (they differ in `action`)."""
    components = spec['components']['schemas']
    events = collections.OrderedDict()
    for key, item in spec['webhooks'].items():
        op = item['post']
        event = op.get('x-github', {}).get('subcategory') or key.split('-')[0]
        body = op['requestBody']['content']['application/json']['schema']
        events.setdefault(event, []).append(body)
    tools = []
    for event, bodies in events.items():
        roots = set()
        for body in bodies:
            referenced(body, roots)
        if len(bodies) > 1:
            schema = {'oneOf': [rewrite(b) for b in bodies]}
        else:
            schema = rewrite(bodies[0])
        tools.append({
            'name': event.replace('-', '_')[:64],
            'description': f'GitHub {event} webhook',
            'inputSchema': with_defs(schema, roots, components),
        })
    return tools


def parameter(p, spec):
    if '$ref' in p:
        return spec['components']['parameters'][p['$ref'].split('/')[-1]]
    return p


def rest_tools(spec):
    """One tool per REST operation: path and query parameters, and the JSON request body."""
    components = spec['components']['schemas']
    tools = []
    for path, item in spec['paths'].items():
        for method, op in item.items():
            if method not in ('get', 'post', 'put', 'patch', 'delete'):
                continue
            properties, required = {}, []
            for p in op.get('parameters', []) + item.get('parameters', []):
                p = parameter(p, spec)
                if p.get('in') not in ('path', 'query'):
                    continue
                s = dict(p.get('schema', {}))
                if 'description' in p:
                    s = {'description': p['description'], **s}
                properties[p['name']] = s
                if p.get('required'):
                    required.append(p['name'])
            content = op.get('requestBody', {}).get('content', {})
            body = content.get('application/json', {}).get('schema')
            if body is not None:
                properties['body'] = body
                if op['requestBody'].get('required'):
                    required.append('body')
            schema = {'type': 'object', 'properties': properties}
            if required:
                schema['required'] = required
            roots = set()
            referenced(schema, roots)
            tools.append({
                'name': re.sub(r'[^a-zA-Z0-9_-]', '_', op['operationId'])[:64],
                'description': op.get('summary', ''),
                'inputSchema': with_defs(rewrite(schema), roots, components),
            })
    return tools


def components_schema(spec):
    """Every component schema as one bare schema, each reached from a root property."""
    components = spec['components']['schemas']
    return {
        '$schema': 'https://json-schema.org/draft/2020-12/schema',
        'type': 'object',
        'properties': {n: {'$ref': '#/$defs/' + n} for n in components},
        '$defs': {n: rewrite(s) for n, s in components.items()},
    }


def main():
    node_modules, out = sys.argv[1], sys.argv[2]

    def spec(package):
        path = os.path.join(node_modules, '@octokit', package, 'generated', 'api.github.com.json')
        with open(path) as f:
            return json.load(f)

    def write(name, document):
        with open(os.path.join(out, name), 'w') as f:
            json.dump(document, f)

    webhooks, rest = spec('openapi-webhooks'), spec('openapi')
    write('github-webhooks-mcp.json', {'tools': webhook_tools(webhooks)})
    write('github-rest-mcp.json', {'tools': rest_tools(rest)})
    write('github-components-schema.json', components_schema(rest))


if __name__ == '__main__':
    main()
