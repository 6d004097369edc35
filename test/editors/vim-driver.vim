" Drives Vim with ALE through the editors scenario (editors.test.ts): the set-up is docs/editors/vim.md's
" snippet, sourced as a user's vimrc would be, then the plugins are loaded as Vim loads them after the
" vimrc. Silent Ex mode has no event loop of its own: `sleep` lets ALE's jobs, channels and timers run.
" Writes what the editor showed as JSON to $KW_RESULT.
set nocompatible
let s:result = {'steps': []}
let s:published = []

function! s:Finish() abort
  call writefile([json_encode(s:result)], $KW_RESULT)
  qall!
endfunction

function! s:Wait(Predicate, what) abort
  let l:deadline = reltimefloat(reltime()) + 60
  while !a:Predicate()
    if reltimefloat(reltime()) > l:deadline
      throw 'timed out waiting for ' . a:what
    endif
    sleep 50m
  endwhile
endfunction

" ALE's list for the buffer, as LSP ranges (ALE's lnum/col are 1-based, its end_col inclusive).
function! s:Shown(buffer) abort
  let l:list = []
  for l:item in get(get(g:ale_buffer_info, a:buffer, {}), 'loclist', [])
    if l:item.linter_name is# 'kube-windows'
      call add(l:list, {'code': l:item.code, 'range': {
      \ 'start': {'line': l:item.lnum - 1, 'character': l:item.col - 1},
      \ 'end': {'line': l:item.end_lnum - 1, 'character': l:item.end_col}}})
    endif
  endfor
  return l:list
endfunction

function! s:Record(conn_id, message) abort
  if get(a:message, 'method', '') is# 'textDocument/publishDiagnostics'
    call add(s:published, [a:message.params.uri, len(a:message.params.diagnostics)])
  endif
endfunction

let s:menu = v:null
function! s:Menu(data, items) abort
  let s:menu = [a:data, a:items]
endfunction

let s:conn = v:null
function! s:Connected(linter, details) abort
  let s:conn = a:details.connection_id
endfunction

try
  execute 'source ' . fnameescape($KW_SNIPPET)
  " What Vim does after the vimrc, which -u NONE skips: load the plugins on 'runtimepath' (ALE, which
  " `packadd!` put there), then the start packages.
  filetype plugin on
  runtime! plugin/**/*.vim
  packloadall
  call add(s:result.steps, 'snippet')

  execute 'edit ' . fnameescape($KW_MANIFEST)
  let s:buffer = bufnr('')
  let s:expected = str2nr($KW_EXPECTED)
  call s:Wait({-> len(s:Shown(s:buffer)) == s:expected}, 'the diagnostics on open')
  let s:result.diagnostics = s:Shown(s:buffer)
  call add(s:result.steps, 'diagnostics')
  " The connection ALE opened, to watch what the server publishes.
  let s:linter = filter(ale#linter#Get('yaml'), 'v:val.name is# ''kube-windows''')[0]
  call ale#lsp_linter#StartLSP(s:buffer, s:linter, function('s:Connected'))
  call s:Wait({-> s:conn isnot v:null}, 'the connection')
  call ale#lsp#RegisterCallback(s:conn, function('s:Record'))

  " The fix for the finding on line KW_FIX_LINE, through ALE's code-action menu at the cursor.
  call cursor(str2nr($KW_FIX_LINE) + 1, 1)
  normal! ^
  call ale#codefix#Execute(0, function('s:Menu'))
  call s:Wait({-> s:menu isnot v:null}, 'the code actions')
  let s:result.actions = map(copy(s:menu[1]), 'v:val[1].title')
  let s:chosen = filter(copy(s:menu[1]), 'v:val[1].title is# $KW_FIX_TITLE')
  if empty(s:chosen)
    throw 'the fix was not offered'
  endif
  " What ALE does with the entry picked from its menu.
  call ale#codefix#ApplyLSPCodeAction(s:menu[0], s:chosen[0][1])
  write
  let s:result.applied = s:chosen[0][1].title
  call s:Wait({-> len(s:Shown(s:buffer)) == s:expected - 1}, 'the diagnostics after the fix')
  let s:result.afterFix = s:Shown(s:buffer)
  call add(s:result.steps, 'fix')

  " :ALEHover at the Windows field, shown in ALE's preview window (g:ale_hover_to_preview).
  call cursor(str2nr($KW_HOVER_LINE) + 1, str2nr($KW_HOVER_CHAR) + 1)
  let g:ale_hover_to_preview = 1
  ALEHover
  call s:Wait({-> bufexists('ALEPreviewWindow') && !empty(join(getbufline('ALEPreviewWindow', 1, '$'), ''))}, 'the hover')
  let s:result.hover = join(getbufline('ALEPreviewWindow', 1, '$'), "\n")
  execute 'buffer ' . s:buffer
  call add(s:result.steps, 'hover')

  " Deleting the buffer: ALE sends didClose, the server publishes an empty list for it.
  let s:uri = ale#path#ToFileURI(fnamemodify($KW_MANIFEST, ':p'))
  let s:published = []
  execute 'bdelete! ' . s:buffer
  call s:Wait({-> index(s:published, [s:uri, 0]) >= 0}, 'empty diagnostics after close')
  let s:result.cleared = empty(s:Shown(s:buffer)) ? v:true : v:false
  call add(s:result.steps, 'close')
catch
  let s:result.error = v:exception . ' (' . v:throwpoint . ')'
endtry
call s:Finish()
