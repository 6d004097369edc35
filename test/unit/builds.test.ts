import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dockerHubMicrosoftSuccessor, linuxOnlyImage, retagForBuild } from '../../src/core/windows/builds';

test('retagForBuild swaps the build token, keeping the tag style', () => {
  assert.equal(
    retagForBuild('mcr.microsoft.com/windows/servercore:ltsc2022', 17763),
    'mcr.microsoft.com/windows/servercore:ltsc2019',
  );
  assert.equal(
    retagForBuild('mcr.microsoft.com/windows/servercore:1809', 20348),
    'mcr.microsoft.com/windows/servercore:ltsc2022',
  );
  assert.equal(
    retagForBuild('mcr.microsoft.com/windows/servercore:20H2', 17763),
    'mcr.microsoft.com/windows/servercore:1809',
  );
  assert.equal(
    retagForBuild('mcr.microsoft.com/windows/nanoserver:ltsc2022', 17763),
    'mcr.microsoft.com/windows/nanoserver:1809',
  );
  assert.equal(
    retagForBuild('mcr.microsoft.com/powershell:lts-nanoserver-ltsc2022', 17763),
    'mcr.microsoft.com/powershell:lts-nanoserver-1809',
  );
  assert.equal(
    retagForBuild('mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2019', 26100),
    'mcr.microsoft.com/dotnet/framework/aspnet:4.8-windowsservercore-ltsc2025',
  );
  assert.equal(
    retagForBuild('localhost:5000/team/app:1.2-windows-ltsc2022-amd64', 17763),
    'localhost:5000/team/app:1.2-windows-ltsc2019-amd64',
  );
  assert.equal(
    retagForBuild('  mcr.microsoft.com/windows/servercore:ltsc2022 ', 20348),
    'mcr.microsoft.com/windows/servercore:ltsc2022',
  );
});

test('retagForBuild gives up where a new tag would be a guess', () => {
  assert.equal(
    retagForBuild('mcr.microsoft.com/windows/servercore:10.0.17763.5820', 20348),
    undefined,
    'pinned revision',
  );
  assert.equal(
    retagForBuild('mcr.microsoft.com/windows/servercore:ltsc2022@sha256:abc', 17763),
    undefined,
    'digest wins',
  );
  assert.equal(retagForBuild('mcr.microsoft.com/windows/servercore', 17763), undefined, 'no tag');
  assert.equal(retagForBuild('registry.k8s.io/pause:3.9', 17763), undefined, 'multi-arch tag');
  assert.equal(
    retagForBuild('mcr.microsoft.com/windows/servercore:ltsc2022', 19043),
    undefined,
    'unknown target build',
  );
});

test('linuxOnlyImage knows a short, certain list', () => {
  for (const image of [
    'nginx',
    'nginx:1.27-alpine',
    'docker.io/library/redis:7',
    'index.docker.io/library/httpd',
    'busybox@sha256:abc',
    'mysql:8',
    'fedora:40',
    'centos:7',
    'debian:12',
    'ubuntu:24.04',
    'alpine:3.20',
    'postgres:16',
  ]) {
    assert.ok(linuxOnlyImage(image), image);
  }
  for (const image of [
    'registry.access.redhat.com/ubi9',
    'registry.redhat.io/ubi8/ubi-minimal:8.10',
    'gcr.io/distroless/base-debian12',
  ]) {
    assert.ok(linuxOnlyImage(image), image);
  }
  for (const image of [
    'e2eteam/busybox:1.29',
    'registry.k8s.io/e2e-test-images/busybox:1.29-4',
    'sigwindowstools/flannel:v0.21.5-hostprocess',
    'golang:1.22-windowsservercore-ltsc2022',
    'python:3.12',
    'mcr.microsoft.com/windows/nanoserver:ltsc2022',
    'quay.io/someone/nginx',
    'myregistry.example.com/nginx',
    'gcr.io/other/distroless',
  ]) {
    assert.equal(linuxOnlyImage(image), undefined, image);
  }
});

test('dockerHubMicrosoftSuccessor maps the retired microsoft/* repositories', () => {
  assert.equal(dockerHubMicrosoftSuccessor('microsoft/windowsservercore:1709'), 'mcr.microsoft.com/windows/servercore');
  assert.equal(dockerHubMicrosoftSuccessor('microsoft/nanoserver'), 'mcr.microsoft.com/windows/nanoserver');
  assert.equal(dockerHubMicrosoftSuccessor('docker.io/microsoft/iis'), 'mcr.microsoft.com/windows/servercore/iis');
  assert.equal(dockerHubMicrosoftSuccessor('microsoft/mssql-server-windows-developer'), 'mcr.microsoft.com');
  assert.equal(dockerHubMicrosoftSuccessor('mcr.microsoft.com/windows/servercore:ltsc2022'), undefined);
  assert.equal(dockerHubMicrosoftSuccessor('someone/microsoft'), undefined);
});
