-- Drives Neovim's built-in LSP client (headless) through the editors scenario (editors.test.ts): the
-- set-up is docs/editors/neovim.md's snippet, run as a user's init.lua would run it. Writes what the
-- editor showed as JSON to $KW_RESULT. Neovim 0.7: a diagnostic's LSP code and data are in
-- user_data.lsp, its range is rebuilt from lnum/col/end_lnum/end_col.
local env = function(name)
  local value = os.getenv(name)
  assert(value, name)
  return value
end
local result = { steps = {} }
local function finish()
  local f = assert(io.open(env('KW_RESULT'), 'w'))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd('qall!')
end
local function step(name) table.insert(result.steps, name) end

local ok, err = pcall(function()
  -- What `nvim` does without -u NONE, and what a user's config relies on.
  vim.cmd('filetype on')
  local published = {}
  local publish = vim.lsp.handlers['textDocument/publishDiagnostics']
  vim.lsp.handlers['textDocument/publishDiagnostics'] = function(e, params, ctx, config)
    table.insert(published, { uri = params.uri, count = #params.diagnostics })
    return publish(e, params, ctx, config)
  end
  dofile(env('KW_SNIPPET'))
  step('snippet')

  vim.cmd('edit ' .. vim.fn.fnameescape(env('KW_MANIFEST')))
  local buf = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(buf)
  local expected = tonumber(env('KW_EXPECTED'))
  local function shown()
    local list = {}
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      local lsp = (d.user_data or {}).lsp or {}
      table.insert(list, {
        code = lsp.code or d.code,
        range = {
          start = { line = d.lnum, character = d.col },
          ['end'] = { line = d.end_lnum, character = d.end_col },
        },
        lsp = lsp,
      })
    end
    return list
  end
  assert(vim.wait(30000, function() return #shown() == expected end, 50), 'diagnostics on open: ' .. #shown())
  local list = shown()
  result.diagnostics = {}
  for _, d in ipairs(list) do table.insert(result.diagnostics, { code = d.code, range = d.range }) end
  step('diagnostics')

  -- The fix for the finding on line KW_FIX_LINE, as :lua vim.lsp.buf.code_action() would ask for it.
  local target
  for _, d in ipairs(list) do
    if d.range.start.line == tonumber(env('KW_FIX_LINE')) then target = d end
  end
  assert(target, 'no diagnostic on the fix line')
  local responses = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', {
    textDocument = { uri = uri },
    range = target.range,
    context = { diagnostics = { target.lsp } },
  }, 20000)
  result.actions = {}
  local chosen, client_id
  for id, response in pairs(responses or {}) do
    for _, action in ipairs(response.result or {}) do
      table.insert(result.actions, action.title)
      if action.title == env('KW_FIX_TITLE') then chosen, client_id = action, id end
    end
  end
  assert(chosen, 'the fix was not offered')
  vim.lsp.util.apply_workspace_edit(chosen.edit, vim.lsp.get_client_by_id(client_id).offset_encoding)
  vim.cmd('write')
  result.applied = chosen.title
  assert(vim.wait(30000, function() return #shown() == expected - 1 end, 50), 'diagnostics after the fix: ' .. #shown())
  result.afterFix = {}
  for _, d in ipairs(shown()) do table.insert(result.afterFix, { code = d.code, range = d.range }) end
  step('fix')

  local hovers = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
    textDocument = { uri = uri },
    position = { line = tonumber(env('KW_HOVER_LINE')), character = tonumber(env('KW_HOVER_CHAR')) },
  }, 20000)
  for _, response in pairs(hovers or {}) do
    if response.result then
      local contents = response.result.contents
      result.hover = type(contents) == 'table' and (contents.value or contents[1]) or contents
    end
  end
  step('hover')

  -- Closing the buffer: the client sends didClose, the server publishes an empty list for it.
  local before = #published
  vim.cmd('bwipeout!')
  assert(vim.wait(20000, function()
    for i = before + 1, #published do
      if published[i].uri == uri and published[i].count == 0 then return true end
    end
    return false
  end, 50), 'no empty diagnostics after close')
  result.cleared = #vim.diagnostic.get() == 0
  step('close')
end)
if not ok then result.error = tostring(err) end
finish()
