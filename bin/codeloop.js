#!/usr/bin/env node
console.log("hi from codeloop bin");
