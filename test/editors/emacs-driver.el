;;; emacs-driver.el --- drives eglot through the editors scenario (editors.test.ts)  -*- lexical-binding: t -*-
;; The set-up is docs/editors/emacs.md's snippet, loaded as a user's init file would load it; eglot
;; and yaml-mode come from Debian's elpa packages. Batch mode has no command loop: what Emacs would
;; do after a command (eglot-ensure's connect, Flymake's deferred start) is run by hand, as
;; post-command-hook. Writes what the editor showed as JSON to $KW_RESULT.
(require 'json)
(require 'cl-lib)
;; What an interactive Emacs does at startup and batch mode skips: activate the installed packages
;; (Debian's elpa-eglot and elpa-yaml-mode, with their autoloads and auto-mode-alist entries).
(package-activate-all)

(defvar kw-result (list (cons 'steps nil)))
(defvar kw-published nil "Each publishDiagnostics the server sent: (uri . count).")

(defun kw-env (name) (or (getenv name) (error "%s is not set" name)))
(defun kw-set (key value) (push (cons key value) kw-result))
(defun kw-step (name) (setcdr (assq 'steps kw-result) (append (cdr (assq 'steps kw-result)) (list name))))
(defun kw-finish ()
  (with-temp-file (kw-env "KW_RESULT")
    (insert (json-encode (cons (cons 'steps (vconcat (cdr (assq 'steps kw-result))))
                               (assq-delete-all 'steps (copy-sequence kw-result))))))
  (kill-emacs 0))

(defun kw-wait (predicate what)
  "Lets Emacs run (processes, timers, post-command work) until PREDICATE holds, or fails with WHAT."
  (let ((deadline (+ (float-time) 60)))
    (while (not (funcall predicate))
      (when (> (float-time) deadline) (error "timed out waiting for %s" what))
      (accept-process-output nil 0.05)
      (run-hooks 'post-command-hook))))

(defun kw-position (pos)
  (save-excursion
    (goto-char pos)
    (list (cons 'line (1- (line-number-at-pos pos))) (cons 'character (current-column)))))

(defun kw-shown ()
  "The Flymake diagnostics eglot made: rule id (the LSP code) and range, from the buffer's regions."
  (mapcar (lambda (d)
            (let ((lsp (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))))
              (list (cons 'code (plist-get lsp :code))
                    (cons 'range (list (cons 'start (kw-position (flymake-diagnostic-beg d)))
                                       (cons 'end (kw-position (flymake-diagnostic-end d))))))))
          (flymake-diagnostics)))

(condition-case err
    (progn
      (load (kw-env "KW_SNIPPET") nil t t)
      (require 'eglot)
      (advice-add 'eglot-handle-notification :before
                  (lambda (_server method &rest params)
                    (when (eq method 'textDocument/publishDiagnostics)
                      (push (cons (plist-get params :uri) (length (plist-get params :diagnostics)))
                            kw-published))))
      (kw-step "snippet")
      (find-file (kw-env "KW_MANIFEST"))
      (let ((expected (string-to-number (kw-env "KW_EXPECTED")))
            (buffer (current-buffer)))
        (kw-wait (lambda () (and (bound-and-true-p eglot--managed-mode)
                                 (progn (flymake-start) (= (length (flymake-diagnostics)) expected))))
                 "the diagnostics on open")
        (kw-set 'diagnostics (vconcat (kw-shown)))
        (kw-step "diagnostics")

        ;; The fix for the finding on line KW_FIX_LINE, as M-x eglot-code-actions asks for it there.
        (goto-char (point-min))
        (forward-line (string-to-number (kw-env "KW_FIX_LINE")))
        (back-to-indentation)
        (let* ((actions (eglot-code-actions (point) (line-end-position)))
               (chosen (cl-find (kw-env "KW_FIX_TITLE") actions
                                :key (lambda (a) (plist-get a :title)) :test #'equal)))
          (kw-set 'actions (vconcat (mapcar (lambda (a) (plist-get a :title)) actions)))
          (unless chosen (error "the fix was not offered"))
          ;; What eglot does with the action picked from its menu.
          (eglot--apply-workspace-edit (plist-get chosen :edit))
          (save-buffer)
          (kw-set 'applied (plist-get chosen :title)))
        (kw-wait (lambda () (flymake-start) (= (length (flymake-diagnostics)) (1- expected)))
                 "the diagnostics after the fix")
        (kw-set 'afterFix (vconcat (kw-shown)))
        (kw-step "fix")

        ;; Hover, as ElDoc asks for it at point.
        (goto-char (point-min))
        (forward-line (string-to-number (kw-env "KW_HOVER_LINE")))
        (forward-char (string-to-number (kw-env "KW_HOVER_CHAR")))
        (let ((hover nil))
          (eglot-hover-eldoc-function (lambda (info &rest _) (setq hover (or info ""))))
          (kw-wait (lambda () hover) "the hover")
          (kw-set 'hover (substring-no-properties hover)))
        (kw-step "hover")

        ;; Killing the buffer: eglot sends didClose, the server publishes an empty list for it.
        (let ((uri (eglot--path-to-uri (buffer-file-name buffer))))
          (setq kw-published nil)
          (kill-buffer buffer)
          (kw-wait (lambda () (member (cons uri 0) kw-published)) "empty diagnostics after close")
          (kw-set 'cleared t))
        (kw-step "close")))
  (error (kw-set 'error (error-message-string err))))
(kw-finish)
